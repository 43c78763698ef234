package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.ReadyBalancer;
import ark.broker.testing.SseStream;
import ark.broker.testing.SseStream.SseEvent;
import ark.broker.testing.TestKafka;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling restart of two replicas on Kafka under load, as Kubernetes rolls a StatefulSet: SIGTERM one replica,
 * start its replacement, wait until it is ready, then the next; in front of them a load balancer that sends new
 * connections to ready replicas only, as a Service does. Meanwhile REST clients create and answer questions, a
 * dashboard watches, and agents wait on plain {@code ask_question} calls and on task results, each retrying as a
 * client does (the same idempotency key, the watch's Last-Event-ID, the MCP stream's event id). No request fails
 * that such a retry cannot complete, and nothing acknowledged is lost.
 */
class RollingRestartIT {
  private static final String AGENTS_ASK = "ark://users/rolling-agents";
  private static final String REST_ASKS = "ark://users/rolling-rest";
  private static final int ATTEMPTS = 100;
  private static final Duration RETRY_PAUSE = Duration.ofMillis(100);

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final AtomicBoolean loading = new AtomicBoolean(true);
  private final List<String> failures = new CopyOnWriteArrayList<>();
  private final AtomicInteger retries = new AtomicInteger();
  private final AtomicInteger resumed = new AtomicInteger();
  /** Questions whose creation a client was told is stored. */
  private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
  /** Question id to the answer a client was told is stored. */
  private final Map<String, String> answers = new ConcurrentHashMap<>();
  private final AtomicBoolean agentsDone = new AtomicBoolean();
  private final AtomicBoolean writersDone = new AtomicBoolean();
  private final Set<String> watched = ConcurrentHashMap.newKeySet();
  private final List<Long> watchedPositions = new CopyOnWriteArrayList<>();
  private final AtomicInteger answeredCalls = new AtomicInteger();
  private final AtomicInteger answeredTasks = new AtomicInteger();
  private ReadyBalancer balancer;

  @TempDir
  Path dataDir;

  @Test
  void aRollingRestartUnderLoadFailsNoRetriedRequestAndLosesNothingAcknowledged() throws Exception {
    Map<String, String> environment = new HashMap<>(BrokerProcess.environmentOf(TestKafka.shared().cluster()));
    environment.put("SHUTDOWN_DELAY_SECONDS", "1");
    environment.put("LOG_LEVEL", "WARN");
    List<ReadyBalancer.Replica> slots = List.of(
        new ReadyBalancer.Replica(BrokerProcess.freePort(), BrokerProcess.freePort()),
        new ReadyBalancer.Replica(BrokerProcess.freePort(), BrokerProcess.freePort()));
    List<BrokerProcess> replicas = new ArrayList<>();
    ExecutorService clients = Executors.newCachedThreadPool();
    try {
      for (int i = 0; i < slots.size(); i++) {
        replicas.add(start(i, slots.get(i), environment));
      }
      balancer = new ReadyBalancer(slots);
      List<Future<?>> writers = new ArrayList<>();
      List<Future<?>> agents = new ArrayList<>();
      Future<?> person = clients.submit(this::answerTheAgents);
      Future<?> dashboard = clients.submit(this::watch);
      for (int i = 0; i < 2; i++) {
        writers.add(clients.submit(this::createAndAnswer));
        agents.add(clients.submit(() -> agentAsking(false)));
      }
      agents.add(clients.submit(() -> agentAsking(true)));
      awaitProgress(20);

      for (int i = 0; i < slots.size(); i++) {
        replicas.get(i).terminate();
        assertThat(replicas.get(i).awaitExit(Duration.ofSeconds(60))).as("replica %d stopped cleanly", i).isZero();
        replicas.set(i, start(i, slots.get(i), environment));
        awaitProgress(acknowledged.size() + 10);
      }
      loading.set(false);
      for (Future<?> agent : agents) {
        agent.get(120, TimeUnit.SECONDS);
      }
      agentsDone.set(true);
      person.get(30, TimeUnit.SECONDS);
      for (Future<?> writer : writers) {
        writer.get(120, TimeUnit.SECONDS);
      }
      writersDone.set(true);
      dashboard.get(120, TimeUnit.SECONDS);

      System.out.printf("Rolling restart under load: %d questions acknowledged, %d plain calls and %d task results"
              + " answered, %d requests retried, %d streams resumed, %d failures%n", acknowledged.size(),
          answeredCalls.get(), answeredTasks.get(), retries.get(), resumed.get(), failures.size());
      assertThat(failures).as("requests that a client's retries could not complete").isEmpty();
      assertThat(answeredCalls.get()).isPositive();
      assertThat(answeredTasks.get()).isPositive();
      for (ReadyBalancer.Replica slot : slots) {
        URI replica = URI.create("http://127.0.0.1:" + slot.httpPort());
        for (String id : acknowledged) {
          JsonObject question = get(replica, "/questions/" + id);
          assertThat(question).as("%s on the replica at %s", id, replica).isNotNull();
          if (answers.containsKey(id)) {
            assertThat(question.getString("response")).as("the answer to %s", id).isEqualTo(answers.get(id));
          }
        }
      }
      assertThat(watched).as("the watch saw every acknowledged question").containsAll(acknowledged);
      assertThat(watchedPositions).as("in order, none twice").isSorted().doesNotHaveDuplicates();
    } finally {
      loading.set(false);
      clients.shutdownNow();
      if (balancer != null) {
        balancer.close();
      }
      for (BrokerProcess replica : replicas) {
        replica.close();
      }
    }
  }

  private BrokerProcess start(int index, ReadyBalancer.Replica slot, Map<String, String> environment) throws Exception {
    Map<String, String> own = new HashMap<>(environment);
    own.put("MCP_PORT", Integer.toString(slot.mcpPort()));
    return BrokerProcess.start(dataDir.resolve("replica-" + index + "-" + UUID.randomUUID()), slot.httpPort(), own);
  }

  private void awaitProgress(int acknowledgedQuestions) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (acknowledged.size() < acknowledgedQuestions && System.nanoTime() < deadline && failures.isEmpty()) {
      Thread.sleep(50);
    }
  }

  // ---- REST: create, then answer, each retried with what makes a retry safe ----

  private void createAndAnswer() {
    while (loading.get()) {
      String key = UUID.randomUUID().toString();
      JsonObject created = retried("create " + key, () -> send("POST", "/questions", new JsonObject()
          .put("recipient", REST_ASKS).put("content", "Roll on?").put("idempotencyKey", key), 200, 201));
      if (created == null) {
        return;
      }
      String id = created.getString("id");
      acknowledged.add(id);
      String answer = "yes " + key;
      // A retry after an answer that was stored but not acknowledged is refused (409): the answer is there.
      JsonObject answered = retried("answer " + id, () -> {
        JsonObject result = send("PATCH", "/questions/" + id, new JsonObject().put("response", answer), 200, 409);
        return result != null && result.containsKey("error") ? get(balancer.http, "/questions/" + id) : result;
      });
      if (answered == null || !answer.equals(answered.getString("response"))) {
        failures.add("answer " + id + ": " + answered);
        return;
      }
      answers.put(id, answer);
    }
  }

  // ---- a dashboard watching, reconnecting from its last event id ----

  private void watch() {
    String lastEventId = "0";
    long deadline = Long.MAX_VALUE;
    while (System.nanoTime() < deadline) {
      try (SseStream stream = SseStream.open(http, HttpRequest.newBuilder(balancer.http.resolve("/questions?watch=true"))
          .header("Accept", "text/event-stream").header("Last-Event-ID", lastEventId).build())) {
        if (stream.status != 200) {
          retries.incrementAndGet();
          pause();
          continue;
        }
        for (SseEvent event = stream.next(1, TimeUnit.SECONDS); event == null || !event.event().equals("end-of-stream");
             event = stream.next(1, TimeUnit.SECONDS)) {
          if (writersDone.get() && watched.containsAll(acknowledged)) {
            return;
          }
          if (writersDone.get() && deadline == Long.MAX_VALUE) {
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
          }
          if (event == null) {
            continue;
          }
          lastEventId = event.id();
          watchedPositions.add(Long.parseLong(event.id()));
          if (event.event().equals("question_created")) {
            watched.add(event.json().getString("id"));
          }
        }
        resumed.incrementAndGet();
      } catch (IOException cut) {
        retries.incrementAndGet();
        pause();
      } catch (Exception e) {
        failures.add("watch: " + e);
        return;
      }
    }
  }

  // ---- agents: a plain call that waits, or a task and its result, resumed when cut ----

  private void agentAsking(boolean asTask) {
    McpTestClient agent = new McpTestClient(balancer.mcp);
    if (retried("initialize", () -> {
      agent.sessionId = null;
      try {
        agent.initialize();
        return new JsonObject();
      } catch (AssertionError refused) {
        return null; // 503 from a replica that is stopping
      }
    }) == null) {
      return;
    }
    while (loading.get()) {
      String key = UUID.randomUUID().toString();
      JsonObject arguments = new JsonObject().put("recipient", AGENTS_ASK).put("content", "May I?").put("idempotencyKey", key);
      JsonObject call = new JsonObject().put("name", "ask_question").put("arguments", arguments);
      JsonObject result;
      if (asTask) {
        JsonObject task = retried("task " + key, () -> {
          McpTestClient.Reply reply = agent.call("tools/call", call.copy().put("task", new JsonObject()));
          return reply.status() == 200 ? reply.result() : null;
        });
        if (task == null) {
          return;
        }
        String taskId = task.getJsonObject("task").getString("taskId");
        result = waitFor(agent, agent.message("tasks/result", new JsonObject().put("taskId", taskId)), "result of " + taskId);
      } else {
        result = waitFor(agent, agent.message("tools/call", call), "plain call " + key);
      }
      if (result == null) {
        return;
      }
      JsonObject answer = result.getJsonObject("result").getJsonObject("structuredContent");
      if (!("ok " + answer.getString("questionId")).equals(answer.getString("response"))) {
        failures.add("agent got " + result);
        return;
      }
      (asTask ? answeredTasks : answeredCalls).incrementAndGet();
    }
  }

  /**
   * Sends a request whose answer streams and reads it to its response: a stream cut before it is resumed with
   * GET and the last event id (on whichever replica the balancer picks); a request that never got a stream is
   * sent again (the same id and idempotency key: the same question).
   */
  private JsonObject waitFor(McpTestClient agent, JsonObject request, String what) {
    String lastEventId = null;
    List<String> outcomes = new ArrayList<>();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try (SseStream stream = lastEventId == null ? agent.stream(request) : agent.get(lastEventId)) {
        outcomes.add((lastEventId == null ? "sent: " : "resumed: ") + stream.status + " " + stream.contentType);
        if (stream.status == 200 && stream.contentType.startsWith("text/event-stream")) {
          for (SseEvent event = stream.next(60, TimeUnit.SECONDS); event != null && !event.event().equals("end-of-stream");
               event = stream.next(60, TimeUnit.SECONDS)) {
            lastEventId = event.id() != null ? event.id() : lastEventId;
            if (!event.data().isBlank() && (event.json().containsKey("result") || event.json().containsKey("error"))) {
              if (event.json().containsKey("error")) {
                failures.add(what + ": " + event.json());
                return null;
              }
              return event.json();
            }
          }
          resumed.incrementAndGet();
        } else if (stream.status == 200) {
          JsonObject response = new JsonObject(stream.plainBody());
          if (response.containsKey("error")) {
            failures.add(what + ": " + response);
            return null;
          }
          return response;
        } else {
          retries.incrementAndGet();
        }
      } catch (IOException cut) {
        outcomes.add("cut: " + cut);
        retries.incrementAndGet();
      } catch (Exception e) {
        failures.add(what + ": " + e);
        return null;
      }
      pause();
    }
    failures.add(what + ": no result after " + ATTEMPTS + " attempts, the last of them "
        + outcomes.subList(outcomes.size() - 3, outcomes.size()));
    return null;
  }

  /** The person: answers every pending question the agents asked, "ok <id>", until the agents are done. */
  private void answerTheAgents() {
    while (!agentsDone.get()) {
      try {
        JsonObject page = get(balancer.http, "/questions?status=pending&recipient=" + AGENTS_ASK);
        if (page != null) {
          for (Object item : page.getJsonArray("items", new JsonArray())) {
            String id = ((JsonObject) item).getString("id");
            send("PATCH", "/questions/" + id, new JsonObject().put("response", "ok " + id), 200, 409);
          }
        }
      } catch (Exception replicaAway) {
        retries.incrementAndGet();
      }
      pause();
    }
  }

  // ---- HTTP with retries ----

  @FunctionalInterface
  private interface Attempt {
    /** The result, or null to try again. */
    JsonObject run() throws Exception;
  }

  /** Runs {@code attempt} until it returns a result; connection failures and answers to retry (null) are retried. */
  private JsonObject retried(String what, Attempt attempt) {
    for (int i = 0; i < ATTEMPTS; i++) {
      try {
        JsonObject result = attempt.run();
        if (result != null) {
          return result;
        }
      } catch (IOException cutOrRefused) {
        // a client tries again
      } catch (Exception e) {
        failures.add(what + ": " + e);
        return null;
      }
      retries.incrementAndGet();
      pause();
    }
    failures.add(what + ": no success after " + ATTEMPTS + " attempts");
    return null;
  }

  /** The JSON answer if its status is one of {@code accepted}; null for a status a client retries (5xx). */
  private JsonObject send(String method, String path, JsonObject body, int... accepted) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(balancer.http.resolve(path))
        .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
        .method(method, HttpRequest.BodyPublishers.ofString(body.encode())).build(), HttpResponse.BodyHandlers.ofString());
    for (int status : accepted) {
      if (response.statusCode() == status) {
        return new JsonObject(response.body());
      }
    }
    if (response.statusCode() >= 500) {
      return null;
    }
    throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
  }

  private JsonObject get(URI base, String path) {
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(20))
          .build(), HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? new JsonObject(response.body()) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static void pause() {
    try {
      Thread.sleep(RETRY_PAUSE.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
