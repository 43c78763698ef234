package ark.broker.bench;

import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A load generator in its own process that reports how throughput moves with time: {@code clients}
 * loops, each creating a question over REST and then answering it. For each line
 * {@code run <port> <seconds>} on stdin it drives the broker on that port for that long and prints
 * {@code done <errors> <pairs in second 0>,<pairs in second 1>,...}. A first run against a throwaway
 * broker warms this JVM, so the next run's figures are the broker's warm-up and not the generator's.
 * Arguments: {@code host clients}.
 */
public final class WindowedLoad {

  public static void main(String[] args) throws Exception {
    String host = args[0];
    int clients = Integer.parseInt(args[1]);
    Vertx vertx = Vertx.vertx();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String[] run = line.split(" ");
      HttpClient http = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(host)
          .setDefaultPort(Integer.parseInt(run[1])), new PoolOptions().setHttp1MaxSize(clients));
      int seconds = Integer.parseInt(run[2]);
      AtomicIntegerArray perSecond = new AtomicIntegerArray(seconds);
      AtomicLong errors = new AtomicLong();
      long started = System.nanoTime();
      long end = started + TimeUnit.SECONDS.toNanos(seconds);
      List<io.vertx.core.Future<Void>> loops = new ArrayList<>();
      AtomicInteger n = new AtomicInteger();
      for (int c = 0; c < clients; c++) {
        Promise<Void> finished = Promise.promise();
        pair(http, n, started, end, perSecond, errors, finished);
        loops.add(finished.future());
      }
      io.vertx.core.Future.all(loops).await(seconds + 60L, TimeUnit.SECONDS);
      http.close().await(10, TimeUnit.SECONDS);
      StringJoiner counts = new StringJoiner(",");
      for (int s = 0; s < seconds; s++) {
        counts.add(Integer.toString(perSecond.get(s)));
      }
      System.out.println("done " + errors.get() + " " + counts);
      System.out.flush();
    }
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private static void pair(HttpClient http, AtomicInteger n, long started, long end, AtomicIntegerArray perSecond,
                           AtomicLong errors, Promise<Void> finished) {
    if (System.nanoTime() >= end) {
      finished.complete();
      return;
    }
    int number = n.getAndIncrement();
    CoreBenchmark.request(http, false, null, null, number)
        .compose(id -> CoreBenchmark.request(http, true, id, null, number))
        .onComplete(result -> {
          long now = System.nanoTime();
          if (result.failed()) {
            errors.incrementAndGet();
          } else if (now < end) {
            perSecond.incrementAndGet((int) TimeUnit.NANOSECONDS.toSeconds(now - started));
          }
          pair(http, n, started, end, perSecond, errors, finished);
        });
  }

  private WindowedLoad() {
  }
}
