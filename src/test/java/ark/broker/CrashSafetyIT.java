package ark.broker;

import ark.broker.testing.BrokerProcess;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker killed with SIGKILL under concurrent creates and answers: every write that got a 2xx is
 * there after the restart, the log holds no half record, and a deliberately truncated last record is
 * cut off with a warning.
 */
class CrashSafetyIT {
  /** A record's line: checksum, position, its key as a JSON string (none in a header), payload. */
  private static final Pattern RECORD = Pattern.compile("([0-9a-f]{8}) (\\d+) (\"(?:[^\"\\\\]|\\\\.)*\" )?(.*)");

  @TempDir
  Path dataDir;

  /** What the clients were told succeeded. */
  private final Map<String, String> acknowledgedCreates = new ConcurrentHashMap<>();
  private final Map<String, String> acknowledgedAnswers = new ConcurrentHashMap<>();

  @Test
  void everyAcknowledgedWriteSurvivesKill9() throws Exception {
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.start(dataDir, port, Map.of())) {
      loadThenKill(broker, 1500);
    }
    assertThat(acknowledgedCreates.size()).isGreaterThanOrEqualTo(1500);
    assertThat(acknowledgedAnswers).isNotEmpty();
    assertEveryRecordIsWhole();

    try (BrokerProcess restarted = BrokerProcess.start(dataDir, port, Map.of())) {
      assertAcknowledgedWritesPresent(restarted.base, null);
      assertThat(restarted.output()).containsPattern("Event log .* replayed: \\d+ records");
    }
  }

  @Test
  void aTruncatedLastRecordIsCutOffAndEverythingBeforeItIsThere() throws Exception {
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.start(dataDir, port, Map.of())) {
      loadThenKill(broker, 300);
    }
    Path segment = lastSegment();
    List<String> lines = Files.readAllLines(segment, StandardCharsets.UTF_8);
    String lastLine = lines.get(lines.size() - 1);
    String damagedQuestion = new JsonObject(recordPayload(lastLine)).getJsonObject("question").getString("id");
    try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      channel.truncate(Files.size(segment) - lastLine.length() / 2);
    }

    try (BrokerProcess restarted = BrokerProcess.start(dataDir, port, Map.of())) {
      assertThat(restarted.output()).containsPattern("WARN .*ended with a torn or damaged record at byte \\d+: cut off \\d+ bytes");
      assertAcknowledgedWritesPresent(restarted.base, damagedQuestion);
    }
    assertEveryRecordIsWhole();
  }

  /** 16 clients create and answer until {@code atLeast} creates were acknowledged, then SIGKILL mid-flight. */
  private void loadThenKill(BrokerProcess broker, int atLeast) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger counter = new AtomicInteger();
    ConcurrentLinkedQueue<String> toAnswer = new ConcurrentLinkedQueue<>();
    CountDownLatch enough = new CountDownLatch(1);
    List<Thread> clients = new ArrayList<>();
    for (int c = 0; c < 16; c++) {
      Thread client = new Thread(() -> {
        while (running.get()) {
          try {
            String id = toAnswer.poll();
            if (id != null && counter.get() % 3 == 0) {
              String response = "answer to " + id;
              if (send(http, broker.base, "PATCH", "/questions/" + id, "{\"response\":\"" + response + "\"}") == 200) {
                acknowledgedAnswers.put(id, response);
              }
            } else {
              String content = "question " + counter.incrementAndGet();
              HttpResponse<String> created = http.send(json(broker.base, "POST", "/questions",
                  "{\"recipient\":\"ark://users/john\",\"content\":\"" + content + "\"}"), HttpResponse.BodyHandlers.ofString());
              if (created.statusCode() == 201) {
                String createdId = new JsonObject(created.body()).getString("id");
                acknowledgedCreates.put(createdId, content);
                toAnswer.add(createdId);
                if (acknowledgedCreates.size() >= atLeast) {
                  enough.countDown();
                }
              }
            }
          } catch (Exception killed) {
            // a request cut off by the kill was never acknowledged
          }
        }
      });
      client.start();
      clients.add(client);
    }
    enough.await();
    broker.kill();
    running.set(false);
    for (Thread client : clients) {
      client.join();
    }
  }

  private void assertAcknowledgedWritesPresent(URI base, String damagedQuestion) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, String> created : acknowledgedCreates.entrySet()) {
      HttpResponse<String> read = http.send(HttpRequest.newBuilder(base.resolve("/questions/" + created.getKey())).build(),
          HttpResponse.BodyHandlers.ofString());
      if (read.statusCode() != 200) {
        missing.add(created.getKey());
        continue;
      }
      JsonObject question = new JsonObject(read.body());
      assertThat(question.getString("content")).isEqualTo(created.getValue());
      String answer = acknowledgedAnswers.get(created.getKey());
      if (answer != null && !created.getKey().equals(damagedQuestion)) {
        assertThat(question.getString("status")).isEqualTo("answered");
        assertThat(question.getString("response")).isEqualTo(answer);
      }
    }
    if (damagedQuestion == null) {
      assertThat(missing).isEmpty();
    } else {
      assertThat(missing).isSubsetOf(damagedQuestion);
    }
  }

  /** Every line of every segment is a whole record whose checksum matches. */
  private void assertEveryRecordIsWhole() throws Exception {
    try (Stream<Path> files = Files.list(dataDir.resolve("questions"))) {
      for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
        byte[] bytes = Files.readAllBytes(file);
        assertThat(bytes.length == 0 || bytes[bytes.length - 1] == '\n').as(file + " ends with a whole line").isTrue();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          Matcher record = RECORD.matcher(line);
          assertThat(record.matches()).as(line).isTrue();
          CRC32C crc = new CRC32C();
          String key = record.group(3) == null ? "" : record.group(3);
          crc.update((record.group(2) + " " + key + record.group(4)).getBytes(StandardCharsets.UTF_8));
          assertThat(Long.parseLong(record.group(1), 16)).as("checksum of " + line).isEqualTo(crc.getValue());
          new JsonObject(record.group(4));
        }
      }
    }
  }

  private Path lastSegment() throws Exception {
    try (Stream<Path> files = Files.list(dataDir.resolve("questions"))) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().reduce((a, b) -> b).orElseThrow();
    }
  }

  private static String recordPayload(String line) {
    Matcher record = RECORD.matcher(line);
    assertThat(record.matches()).isTrue();
    return record.group(4);
  }

  private static int send(HttpClient http, URI base, String method, String path, String body) throws Exception {
    return http.send(json(base, method, path, body), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static HttpRequest json(URI base, String method, String path, String body) {
    return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .method(method, HttpRequest.BodyPublishers.ofString(body)).build();
  }
}
