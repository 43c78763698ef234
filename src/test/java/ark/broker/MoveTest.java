package ark.broker;

import ark.broker.contract.ArkHttp;
import ark.broker.contract.BrokerUnderTest;
import ark.broker.contract.Checks;
import ark.broker.contract.EventStreamLines;
import ark.broker.contract.OtlpRequests;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestKafka;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static ark.broker.testing.TestBroker.someone;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A broker outgrows one machine and moves to Kafka, then back: {@code export} from the embedded log, {@code import}
 * into Kafka's (real) topics, and the same again the other way. A broker started on the target serves the same
 * questions (apart from their resourceVersion, which is the position of their record in the new log), memory, stream,
 * events, sessions and traces; a pending question is answered there and its agent (an MCP task) and watcher see it;
 * an import into a target that holds state is refused and changes nothing; wrong calls get a sentence and status 2.
 */
class MoveTest {
  private static final String QUERY = "query-moved";
  private static final String CONVERSATION = "conversation-moved";
  private static final String SESSION = "session-moved";
  private static final String QUERY_UID = "uid-moved";

  @TempDir
  Path dir;

  /** What a command printed and the status it exited with. */
  private record Outcome(int status, String out, String err) {
  }

  @Test
  void everyStoreMovesFromTheEmbeddedLogToKafkaAndBack() throws Exception {
    JsonObject cluster = TestKafka.shared().cluster();
    Path embedded = dir.resolve("embedded");
    String recipient = someone();
    String traceId = OtlpRequests.base64(OtlpRequests.randomId(16));
    String pendingId;
    String settledId;
    String taskId;
    McpTestClient agent;
    Map<String, JsonObject> before;
    try (TestBroker broker = TestBroker.start(embedded)) {
      pendingId = broker.ask("{'recipient':'" + recipient + "','content':'Move to Kafka?'}").getString("id");
      settledId = broker.ask("{'recipient':'" + recipient + "','content':'Back up first?'}").getString("id");
      assertThat(broker.patch("/questions/" + settledId, "{\"response\":\"yes\"}").status()).isEqualTo(200);
      agent = new McpTestClient(broker.mcp).initialize();
      taskId = agent.call("tools/call", new JsonObject().put("name", "ask_question").put("task", new JsonObject())
              .put("arguments", new JsonObject().put("recipient", recipient).put("content", "Still asked after the move?")))
          .result().getJsonObject("task").getString("taskId");
      writeArkStores(BrokerUnderTest.at(broker.base).first(), traceId);
      before = reads(broker, BrokerUnderTest.at(broker.base).first(), List.of(pendingId, settledId, taskId), traceId);

      Outcome whileRunning = run(ExportCommand::run, embeddedEnv(embedded), "export", dir.resolve("refused").toString());
      assertThat(whileRunning.status()).isEqualTo(1);
      assertThat(whileRunning.err()).contains("is in use by another broker process").doesNotContain("Exception");
      assertThat(dir.resolve("refused")).doesNotExist();
      assertThat(dir.resolve("refused.partial")).as("nothing half-exported is left").doesNotExist();
    }

    Path toKafka = dir.resolve("to-kafka");
    Outcome exported = run(ExportCommand::run, embeddedEnv(embedded), "export", toKafka.toString());
    assertThat(exported.status()).as(exported.toString()).isZero();
    assertThat(exported.out()).contains("Exported the embedded log in " + embedded.toAbsolutePath().normalize());
    Outcome imported = run(ImportCommand::run, env(cluster), "import", toKafka.toString());
    assertThat(imported.status()).as(imported.toString()).isZero();
    assertThat(imported.out()).contains("into Kafka at " + TestKafka.shared().bootstrapServers());

    Outcome again = run(ImportCommand::run, env(cluster), "import", toKafka.toString());
    assertThat(again.status()).as(again.toString()).isEqualTo(2);
    assertThat(again.err()).contains("holds state already").contains("never into live state")
        .contains("Nothing was imported");

    try (TestBroker onKafka = TestBroker.start(dir.resolve("replica"), cluster)) {
      ArkHttp ark = BrokerUnderTest.at(onKafka.base).first();
      assertThat(reads(onKafka, ark, List.of(pendingId, settledId, taskId), traceId))
          .as("the same state, and nothing twice from the refused import").isEqualTo(before);
      long listVersion = Long.parseLong(onKafka.get("/questions").json().getString("resourceVersion"));
      for (String id : List.of(pendingId, settledId, taskId)) {
        assertThat(Long.parseLong(onKafka.get("/questions/" + id).json().getString("resourceVersion")))
            .as("a moved question's resourceVersion is its record's position in the new log").isLessThanOrEqualTo(listVersion);
      }

      McpTestClient sameSession = new McpTestClient(onKafka.mcp);
      sameSession.sessionId = agent.sessionId;
      try (SseStream watch = onKafka.watch("recipient=" + recipient, null)) {
        assertThat(onKafka.patch("/questions/" + taskId, "{\"response\":\"yes, on Kafka\"}").status()).isEqualTo(200);
        assertThat(watch.nextOfType("question_answered").json().getString("id")).isEqualTo(taskId);
      }
      JsonObject task = sameSession.call("tasks/get", new JsonObject().put("taskId", taskId)).result();
      assertThat(task.getString("status")).as("the agent's session and task moved").isEqualTo("completed");
      assertThat(sameSession.call("tasks/result", new JsonObject().put("taskId", taskId)).result()
          .getJsonObject("structuredContent").getString("response")).isEqualTo("yes, on Kafka");
      before = reads(onKafka, ark, List.of(pendingId, settledId, taskId), traceId);

      Outcome whileRunning = run(ExportCommand::run, env(cluster), "export", dir.resolve("refused").toString());
      assertThat(whileRunning.status()).as(whileRunning.toString()).isEqualTo(2);
      assertThat(whileRunning.err()).contains("1 replica runs on Kafka at " + TestKafka.shared().bootstrapServers())
          .contains("stop every replica first");
      assertThat(dir.resolve("refused")).doesNotExist();
      assertThat(dir.resolve("refused.partial")).as("nothing half-exported is left").doesNotExist();
    }

    Path toEmbedded = dir.resolve("to-embedded");
    Outcome back = run(ExportCommand::run, env(cluster), "export", toEmbedded.toString());
    assertThat(back.status()).as(back.toString()).isZero();
    Path movedBack = dir.resolve("moved-back");
    assertThat(run(ImportCommand::run, embeddedEnv(movedBack), "import", toEmbedded.toString()).status()).isZero();
    try (TestBroker broker = TestBroker.start(movedBack)) {
      assertThat(reads(broker, BrokerUnderTest.at(broker.base).first(), List.of(pendingId, settledId, taskId), traceId))
          .isEqualTo(before);
      assertThat(broker.patch("/questions/" + pendingId, "{\"response\":\"back home\"}").status()).isEqualTo(200);
    }
  }

  @Test
  void anImportIntoADataDirectoryThatHoldsStateIsRefusedAndChangesNothing() throws Exception {
    Path source = dir.resolve("source");
    Path target = dir.resolve("target");
    String kept;
    try (TestBroker broker = TestBroker.start(source)) {
      broker.ask("{'recipient':'" + someone() + "','content':'Exported?'}");
    }
    try (TestBroker broker = TestBroker.start(target)) {
      kept = broker.ask("{'recipient':'" + someone() + "','content':'Already here'}").getString("id");
    }
    Path export = dir.resolve("export");
    assertThat(run(ExportCommand::run, embeddedEnv(source), "export", export.toString()).status()).isZero();
    Map<Path, byte[]> targetBefore = files(target);

    Outcome refused = run(ImportCommand::run, embeddedEnv(target), "import", export.toString());

    assertThat(refused.status()).isEqualTo(2);
    assertThat(refused.err()).contains("The target, the embedded log in " + target.toAbsolutePath().normalize()
        + ", holds state already (records per log: {questions=");
    assertThat(files(target)).as("every file as it was").containsOnlyKeys(targetBefore.keySet());
    try (TestBroker broker = TestBroker.start(target)) {
      assertThat(broker.listAll("")).extracting(question -> question.getString("id")).containsExactly(kept);
    }
  }

  @Test
  void wrongCallsGetASentenceAndStatusTwo() throws Exception {
    Path data = dir.resolve("data");
    Outcome noArgument = run(ExportCommand::run, embeddedEnv(data), "export");
    assertThat(noArgument.status()).isEqualTo(2);
    assertThat(noArgument.err()).isEqualTo("usage: java -jar ark-broker.jar export <new directory for the export>\n");

    Outcome noData = run(ExportCommand::run, embeddedEnv(data), "export", dir.resolve("out").toString());
    assertThat(noData.status()).isEqualTo(2);
    assertThat(noData.err()).contains("Data directory " + data + " (store.dataDir) does not exist: nothing to export");

    Files.createDirectories(dir.resolve("taken"));
    Outcome taken = run(ExportCommand::run, embeddedEnv(data), "export", dir.resolve("taken").toString());
    assertThat(taken.status()).isEqualTo(2);
    assertThat(taken.err()).contains("exists already; name a new directory");

    Outcome notAnExport = run(ImportCommand::run, embeddedEnv(data), "import", dir.resolve("taken").toString());
    assertThat(notAnExport.status()).isEqualTo(2);
    assertThat(notAnExport.err()).contains("is no export of this version: it has no questions.records");
    assertThat(data).as("a refused import creates nothing").doesNotExist();

    for (Outcome wrong : List.of(noArgument, noData, taken, notAnExport)) {
      assertThat(wrong.err()).doesNotContain("Exception").doesNotContain("\tat ");
      assertThat(wrong.out()).isEmpty();
    }
  }

  /** One message, one stream of two chunks, completed; a Query's start and end events in a session; one span. */
  private static void writeArkStores(ArkHttp ark, String traceId) throws Exception {
    assertThat(ark.postJson("/messages", Checks.messages(CONVERSATION, QUERY, Checks.chat("user", "remember me")))
        .status()).isEqualTo(200);
    String chunks = Checks.chunk(QUERY, "moved ").encode() + "\n" + Checks.chunk(QUERY, "intact").encode() + "\n";
    assertThat(ark.post("/stream/" + QUERY, "application/x-ndjson", chunks.getBytes(StandardCharsets.UTF_8)).status())
        .isEqualTo(200);
    assertThat(ark.postJson("/stream/" + QUERY + "/complete", "{}").status()).isEqualTo(200);
    Instant now = Instant.now();
    for (String reason : List.of("QueryExecutionStart", "QueryExecutionComplete")) {
      assertThat(ark.postJson("/events", Checks.controllerEvent(reason, QUERY_UID, "q-moved", SESSION, now).encode())
          .status()).isEqualTo(201);
    }
    JsonObject span = OtlpRequests.jsonSpan(traceId, OtlpRequests.base64(OtlpRequests.randomId(8)), SESSION);
    assertThat(ark.postJson("/v1/traces", OtlpRequests.json("ark-controller", List.of(span)).encode()).status())
        .isEqualTo(200);
  }

  /**
   * What clients read of every store, without what is a position in the log (a question's resourceVersion, an item's
   * cursor or sequence), which the move renumbers.
   */
  private static Map<String, JsonObject> reads(TestBroker broker, ArkHttp ark, List<String> questions, String traceId)
      throws Exception {
    Map<String, JsonObject> reads = new LinkedHashMap<>();
    for (String id : questions) {
      reads.put("question " + id, withoutPositions(broker.get("/questions/" + id).json()));
      reads.put("history " + id, withoutPositions(broker.get("/questions/" + id + "/events").json()));
    }
    reads.put("memory", withoutPositions(ark.get("/messages?conversation_id=" + CONVERSATION).json()));
    reads.put("events", withoutPositions(ark.get("/events/" + QUERY_UID).json()));
    reads.put("session", withoutPositions(ark.get("/sessions/" + SESSION).json()));
    reads.put("trace", withoutPositions(ark.get("/traces/" + java.net.URLEncoder.encode(traceId, StandardCharsets.UTF_8))
        .json()));
    List<Object> stream = new ArrayList<>();
    try (EventStreamLines reader = ark.watch("/stream/" + QUERY + "?from-beginning=true")) {
      for (String data = reader.nextData(); !"[DONE]".equals(data); data = reader.nextData()) {
        assertThat(data).as("a chunk or [DONE] after %s", stream).isNotNull();
        stream.add(withoutPositions(new JsonObject(data)));
      }
    }
    reads.put("stream", new JsonObject().put("chunks", new JsonArray(stream)));
    return reads;
  }

  private static JsonObject withoutPositions(JsonObject json) {
    JsonObject copy = new JsonObject();
    json.forEach(field -> {
      if (!List.of("resourceVersion", "cursor", "nextCursor", "sequence", "sequenceNumber").contains(field.getKey())) {
        copy.put(field.getKey(), withoutPositions(field.getValue()));
      }
    });
    return copy;
  }

  private static Object withoutPositions(Object value) {
    if (value instanceof JsonObject object) {
      return withoutPositions(object);
    }
    if (value instanceof JsonArray array) {
      return new JsonArray(array.stream().map(MoveTest::withoutPositions).toList());
    }
    return value;
  }

  private interface Command {
    int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err);
  }

  private static Outcome run(Command command, Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = command.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Outcome(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static Map<String, String> embeddedEnv(Path dataDir) {
    return Map.of("STORE_DATA_DIR", dataDir.toString());
  }

  /** The configuration as environment variables, as an operator gives them to the commands. */
  private static Map<String, String> env(JsonObject config) {
    Map<String, String> env = new HashMap<>();
    config.forEach(section -> ((JsonObject) section.getValue()).forEach(key -> env.put(
        (section.getKey() + "_" + key.getKey()).replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT),
        key.getValue() instanceof JsonArray array ? String.join(",", array.stream().map(String::valueOf).toList())
            : String.valueOf(key.getValue()))));
    return env;
  }

  private static Map<Path, byte[]> files(Path root) throws Exception {
    Map<Path, byte[]> files = new HashMap<>();
    try (var paths = Files.walk(root)) {
      for (Path path : paths.filter(Files::isRegularFile).toList()) {
        files.put(root.relativize(path), Files.readAllBytes(path));
      }
    }
    return files;
  }
}
