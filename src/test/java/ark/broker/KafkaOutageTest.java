package ark.broker;

import ark.broker.testing.Eventually;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestKafka;
import ark.broker.testing.TopicRecords;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kafka killed and started again while clients keep writing to two replicas: writes fail with 503
 * meanwhile, reads go on, the replicas recover by themselves, and the topic, read directly, holds
 * every write that was acknowledged; every replica ends up with exactly what the topic holds (a 503
 * may still take effect: Kafka stored it but could not say so, or said so just before it died).
 */
class KafkaOutageTest {
  private static final int CLIENTS = 6;

  @TempDir
  Path dataDir;

  private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
  private final ConcurrentLinkedQueue<String> refusals = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();

  @Test
  void noAcknowledgedWriteIsLostWhenKafkaDiesAndComesBack() throws Exception {
    TestKafka kafka = TestKafka.shared();
    JsonObject cluster = kafka.cluster();
    cluster.getJsonObject("kafka").put("requestTimeoutMillis", 1000L).put("deliveryTimeoutMillis", 2000L);
    String topic = cluster.getJsonObject("kafka").getString("questionsTopic");
    try (TestBroker a = TestBroker.start(dataDir.resolve("a"), cluster);
         TestBroker b = TestBroker.start(dataDir.resolve("b"), cluster)) {
      AtomicBoolean loading = new AtomicBoolean(true);
      List<Thread> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        TestBroker replica = i % 2 == 0 ? a : b;
        Thread client = new Thread(() -> createUntilStopped(replica, loading), "outage-client-" + i);
        client.start();
        clients.add(client);
      }
      Eventually.until("writes flow", acknowledged::size, size -> size >= 100);

      kafka.stop();
      Eventually.until("writes are refused", refusals::size, size -> size >= CLIENTS);
      int beforeRestart = acknowledged.size();
      TestBroker.Response listed = b.get("/questions?limit=5");
      kafka.start();
      Eventually.until("writes flow again", acknowledged::size, size -> size >= beforeRestart + 100);
      loading.set(false);
      for (Thread client : clients) {
        client.join();
      }

      assertThat(unexpected).as("only 201 or 503").isEmpty();
      assertThat(listed.status()).as("reads go on while Kafka is away").isEqualTo(200);
      assertThat(refusals).allSatisfy(message -> assertThat(message).containsAnyOf(
          "Kafka did not acknowledge the write", "Kafka has not taken the writes already waiting for it",
          "but this replica has not read it back"));
      Set<String> inTopic = TopicRecords.read(kafka, topic).stream().map(TopicRecords.Entry::key).collect(Collectors.toSet());
      assertThat(inTopic).as("every acknowledged write is in the topic").containsAll(acknowledged);
      for (TestBroker replica : new TestBroker[] {a, b}) {
        Eventually.until("the replica holds what the topic holds", () -> ids(replica), inTopic::equals);
      }
    }
  }

  private void createUntilStopped(TestBroker replica, AtomicBoolean loading) {
    int n = 0;
    while (loading.get()) {
      try {
        HttpResponse<String> response = replica.http.send(HttpRequest.newBuilder(replica.base.resolve("/questions"))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"recipient\":\"ark://users/john\",\"content\":\"n" + n++ + "\"}"))
            .build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 201) {
          acknowledged.add(new JsonObject(response.body()).getString("id"));
        } else if (response.statusCode() == 503) {
          refusals.add(new JsonObject(response.body()).getJsonObject("error").getString("message"));
        } else {
          unexpected.add(java.time.Instant.now() + " " + response.statusCode() + " " + response.body());
        }
      } catch (Exception e) {
        unexpected.add(java.time.Instant.now() + " " + e);
      }
    }
  }

  private static Set<String> ids(TestBroker replica) throws Exception {
    return replica.listAll("").stream().map(question -> question.getString("id")).collect(Collectors.toSet());
  }
}
