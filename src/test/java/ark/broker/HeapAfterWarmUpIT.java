package ark.broker;

import ark.broker.testing.BrokerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A broker that warmed up holds a heap the size of what it keeps, not of the warm-up's burst of load: run as a
 * container limited like Kubernetes' manifests limit it, where the JVM picks the serial collector, which by itself
 * would keep the burst's heap (and a young generation sized from it) for the life of the process.
 */
class HeapAfterWarmUpIT {
  private static final Pattern GIVEN_BACK = Pattern.compile("Warmed up the request path .*; heap (\\d+) MiB -> (\\d+) MiB");
  private static final Pattern HEAP_COMMITTED = Pattern.compile("(?m)^jvm_memory_committed_bytes\\{area=\"heap\"[^}]*} (\\S+)$");
  private static final long MIB = 1024 * 1024;
  private static final int LITTLE_MORE_THAN_LIVE = 32;

  @TempDir
  Path dir;

  @Test
  void theWarmUpsHeapIsGivenBackBeforeItServes() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir, BrokerProcess.freePort(),
        Map.of("WARM_UP_SECONDS", "5", "JAVA_TOOL_OPTIONS", "-XX:+UseSerialGC -Xms16m"))) {
      String log = broker.output();
      Matcher line = GIVEN_BACK.matcher(log);
      assertThat(line.find()).as(log).isTrue();
      long during = Long.parseLong(line.group(1));
      long after = Long.parseLong(line.group(2));
      // What is live then is the real broker's own, about 12 MiB; the warm-up's load grows the heap to 60 or more.
      assertThat(after).as("the heap after the warm-up, MiB, against %d during it", during)
          .isLessThanOrEqualTo(during).isLessThan(LITTLE_MORE_THAN_LIVE);

      String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(broker.base.resolve("/metrics"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
      Matcher committed = HEAP_COMMITTED.matcher(metrics);
      double heap = 0;
      while (committed.find()) {
        heap += Double.parseDouble(committed.group(1));
      }
      assertThat(heap / MIB).as("the committed heap /metrics reports, MiB").isGreaterThan(0).isLessThan(LITTLE_MORE_THAN_LIVE);
    }
  }
}
