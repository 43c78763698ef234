package ark.broker;

import ark.broker.testing.TestBroker;
import ark.broker.testing.TestKafka;
import io.vertx.core.json.JsonObject;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Upgrades: this version reads what the release before format versions (commit 0e06968, record format 1) wrote. The
 * fixtures in {@code fixtures/format-1/data-directory} are that release's data directory, byte for byte: a snapshot and a
 * segment of the question log (plain, form and approval questions answered, cancelled, expired, pending, with a
 * delivery, an escalation, an idempotency key, a task and a Query's tool call) and of the session log (sessions
 * started and ended). {@code fixtures/format-1/kafka} holds the records it wrote to its Kafka topics, keys, values and
 * (no) headers as read back from the topics.
 */
class OldFormatsTest {
  private static final Map<String, String> FILE_QUESTIONS = new TreeMap<>(Map.of(
      "q-8b7d6616-4ac1-4847-a7bf-5b40383ee9d5", "answered",
      "q-47a98eb8-a49b-4aeb-87f0-87c85e13d560", "answered",
      "q-c2603c03-50ab-4249-9f50-0815a4b3f747", "answered",
      "q-f0572223-ae83-3daa-9bb7-769e6db8bc0e", "cancelled",
      "q-c124135f-bb02-4c1d-8078-8a912f2eb79b", "expired",
      "q-bdfeb9d6-a1b3-45db-b1c9-c6aa2f82d33d", "pending",
      "q-d4cf6881-0f87-4373-b993-5155e36e28ac", "pending",
      "q-25df1996-b4a3-4d90-b36c-549dd21824f1", "answered",
      "q-1cb44e94-6cfd-342e-aa4c-3d9ff9ddfd3b", "pending",
      "q-a2e9ca53-0c0d-4e10-a738-54ebb3bd3c03", "answered"));
  private static final List<String> FILE_SESSIONS = List.of("3vDBAQ216xLg6d-qwuTpumGvAn3Hm6dg",
      "zcIUGwN1Q0GPwY3gCu31zMbLNhHVKRXn", "6Z9ueClfw_K2XsRSmthmweqTGsZfj1pp", "DYBnurbGcz_ZYFI_tZjlsh5YvrRtRrIq",
      "zK9TsJEPEY9M9e2qlBvISQsJkSPxuJwC", "0mzZVAWBHEDBavHjq1xGJrDHbsoIgpBj");
  private static final String FILE_ENDED_SESSION = "hjGP1WvkbCnB5-AGr4y2x78h5WBzpQGo";

  @TempDir
  Path dataDir;

  @Test
  void aDataDirectoryOfTheFirstFormatIsReadAndWrittenOnAcrossRestarts() throws Exception {
    copyFixture("data-directory/questions", List.of("snapshot-00000000000000000016.snap", "segment-00000000000000000017.log"));
    copyFixture("data-directory/sessions", List.of("snapshot-00000000000000000008.snap", "segment-00000000000000000009.log"));
    String pending = "q-1cb44e94-6cfd-342e-aa4c-3d9ff9ddfd3b";

    try (TestBroker broker = TestBroker.start(dataDir)) {
      assertThat(statuses(broker)).isEqualTo(FILE_QUESTIONS);
      assertThat(broker.get("/questions/q-8b7d6616-4ac1-4847-a7bf-5b40383ee9d5").json().getJsonArray("deliveries"))
          .hasSize(1);
      assertThat(broker.get("/questions/" + pending).json().getJsonObject("query").getString("name"))
          .isEqualTo("fixture-query");
      for (String session : FILE_SESSIONS) {
        assertThat(ping(broker, session)).as("session %s", session).isEqualTo(200);
      }
      assertThat(ping(broker, FILE_ENDED_SESSION)).isEqualTo(404);
      assertThat(broker.patch("/questions/" + pending, "{\"response\":\"answered after the upgrade\"}").status())
          .isEqualTo(200);
    }
    try (TestBroker restarted = TestBroker.start(dataDir)) {
      Map<String, String> expected = new TreeMap<>(FILE_QUESTIONS);
      expected.put(pending, "answered");

      assertThat(statuses(restarted)).isEqualTo(expected);
      assertThat(restarted.get("/questions/" + pending).json().getString("response")).isEqualTo("answered after the upgrade");
      assertThat(ping(restarted, FILE_SESSIONS.get(0))).isEqualTo(200);
    }
    try (var segments = Files.list(dataDir.resolve("questions"))) {
      assertThat(segments.map(path -> path.getFileName().toString()).filter(name -> name.startsWith("segment-")))
          .as("the old segment is read as it was; new records go to a segment of the current format")
          .contains("segment-00000000000000000017.log", "segment-00000000000000000020.log");
    }
    assertThat(Files.readAllLines(dataDir.resolve("questions/segment-00000000000000000020.log")).get(0))
        .endsWith(" 0 {\"format\":2}");
  }

  @Test
  void kafkaTopicsOfTheFirstFormatAreRead() throws Exception {
    TestKafka kafka = TestKafka.shared();
    JsonObject cluster = kafka.cluster();
    JsonObject topics = cluster.getJsonObject("kafka");
    produceFixture(kafka, "kafka/questions.ndjson", topics.getString("questionsTopic"));
    produceFixture(kafka, "kafka/sessions.ndjson", topics.getString("sessionsTopic"));

    try (TestBroker broker = TestBroker.start(dataDir, cluster)) {
      assertThat(statuses(broker)).isEqualTo(new TreeMap<>(Map.of(
          "q-371f943b-24d6-4240-a467-3db2f8d44192", "answered",
          "q-67d2d05b-6189-4287-8807-9e1e93cb2b8c", "answered",
          "q-47552933-916e-3bfe-b6f2-a7da74cf6792", "cancelled",
          "q-5ab3d168-1a41-4e55-9338-0bab32336bfb", "pending")));
      assertThat(broker.get("/questions/q-67d2d05b-6189-4287-8807-9e1e93cb2b8c").json()
          .getJsonObject("decision").getString("action")).isEqualTo("rejected");
      assertThat(ping(broker, "oO3drtQlDuM0PAWWRsztW-f75vnHxpdh")).isEqualTo(200);
      assertThat(ping(broker, "jEoKzV6VaQKvpvhbBnzAgXBNIUym2myC")).isEqualTo(404);
      assertThat(broker.patch("/questions/q-5ab3d168-1a41-4e55-9338-0bab32336bfb", "{\"response\":\"yes\"}").status())
          .isEqualTo(200);
    }
  }

  private static Map<String, String> statuses(TestBroker broker) throws Exception {
    return broker.listAll("").stream().collect(Collectors.toMap(question -> question.getString("id"),
        question -> question.getString("status"), (one, other) -> one, TreeMap::new));
  }

  /** An MCP ping in the session: 200 if the broker holds it, 404 if not. */
  private static int ping(TestBroker broker, String session) throws Exception {
    return broker.send(HttpRequest.newBuilder(URI.create(broker.mcp.toString()))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25")
        .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"))).status();
  }

  private void copyFixture(String log, List<String> files) throws Exception {
    Path dir = dataDir.resolve(log.substring(log.indexOf('/') + 1));
    Files.createDirectories(dir);
    for (String file : files) {
      Files.write(dir.resolve(file), fixture(log + "/" + file));
    }
  }

  /** Produces the records as the first format wrote them: the same keys and values, no header. */
  private static void produceFixture(TestKafka kafka, String fixture, String topic) throws Exception {
    try (Admin admin = kafka.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("cleanup.policy", "compact"))))
          .all().get(10, TimeUnit.SECONDS);
    }
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers", kafka.bootstrapServers()),
        new StringSerializer(), new StringSerializer())) {
      for (String line : new String(fixture(fixture), StandardCharsets.UTF_8).lines().toList()) {
        JsonObject record = new JsonObject(line);
        producer.send(new ProducerRecord<>(topic, 0, record.getString("key"), record.getString("value")))
            .get(10, TimeUnit.SECONDS);
      }
    }
  }

  private static byte[] fixture(String path) throws Exception {
    try (InputStream in = OldFormatsTest.class.getResourceAsStream("/fixtures/format-1/" + path)) {
      return in.readAllBytes();
    }
  }
}
