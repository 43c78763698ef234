package ark.broker.contract;

import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static ark.broker.contract.Checks.chat;
import static ark.broker.contract.Checks.chunk;
import static ark.broker.contract.Checks.completed;
import static ark.broker.contract.Checks.items;
import static ark.broker.contract.Checks.messages;
import static ark.broker.contract.Checks.started;
import static ark.broker.contract.Checks.unique;
import static ark.broker.contract.Checks.withoutCursor;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas of one broker behind a Service that spreads connections: whatever is written on one is read, watched
 * and resumed on the other (issue 26 and 27: "Any replica serves any reader"). Skipped with one base URL.
 */
public interface ReplicasContract extends StreamContract, SessionsContract, TracesContract {

  @AcrossReplicas
  default void aQueryTakenOutOfItsSessionOnOneReplicaIsGoneOnTheOtherRightAfter() throws Exception {
    ArkHttp other = broker().second();
    String session = unique("s");
    String query = unique("q");
    postEvent(ark(), Checks.controllerEvent("QueryExecutionStart", unique("uid"), query, session,
        java.time.Instant.now()));
    postEvent(ark(), Checks.controllerEvent("QueryExecutionStart", unique("uid"), "q-stays", session,
        java.time.Instant.now()));

    assertThat(other.delete("/sessions/queries/" + query).json()).isEqualTo(new JsonObject().put("removed", 1));
    assertThat(ark().get("/sessions/" + session).json().getJsonObject("queries").fieldNames())
        .as("read on the first replica right after").containsExactly("q-stays");
  }

  @AcrossReplicas
  default void aQueryAttachedOnOneReplicaShowsItsConversationOnTheOtherRightAfter() throws Exception {
    String session = unique("s");
    String query = startedWithoutConversation(session);
    String conversation = unique("conv");

    assertThat(broker().second().postJson("/messages", messages(conversation, query)).status()).isEqualTo(200);
    assertThat(ark().get("/sessions/" + session).json().getJsonObject("queries").getJsonObject(query)
        .getString("conversationId")).as("read on the first replica right after").isEqualTo(conversation);
  }

  @AcrossReplicas
  default void aMessageWrittenOnOneReplicaIsReadOnTheOtherRightAfter() throws Exception {
    ArkHttp[] replicas = {ark(), broker().second()};
    String conversation = unique("conv");
    for (int i = 0; i < 50; i++) {
      ArkHttp writer = replicas[i % 2];
      ArkHttp reader = replicas[(i + 1) % 2];
      assertThat(writer.postJson("/messages", messages(conversation, "q-1", chat("user", "m" + i))).status())
          .isEqualTo(200);
      assertThat(items(reader.get("/messages?conversation_id=" + conversation + "&limit=1000")))
          .as("read on the other replica right after write %d", i).hasSize(i + 1);
    }
  }

  /** A tool's output of a few MiB (Kafka takes 1 MiB records unless told otherwise). */
  @AcrossReplicas
  default void aMessageOfSeveralMebibytesWrittenOnOneReplicaIsReadWholeOnTheOther() throws Exception {
    String conversation = unique("conv");
    String output = "x".repeat(3 * 1024 * 1024);

    assertThat(ark().postJson("/messages", messages(conversation, "q-1", chat("tool", output))).status())
        .isEqualTo(200);

    assertThat(items(broker().second().get("/messages?conversation_id=" + conversation)))
        .singleElement().satisfies(item -> assertThat(item.getJsonObject("message").getString("content")).isEqualTo(output));
  }

  @AcrossReplicas
  default void aMessageWatchOnOneReplicaSeesWritesOnTheOther() throws Exception {
    ArkHttp other = broker().second();
    String conversation = unique("conv");
    try (EventStreamLines watch = other.watch("/messages?watch=true&conversation_id=" + conversation)) {
      assertThat(watch.nextLine(PROMPTLY)).isEqualTo(": connected");
      for (int i = 0; i < 3; i++) {
        ark().postJson("/messages", messages(conversation, "q-1", chat("user", "m" + i)));
      }
      for (int i = 0; i < 3; i++) {
        assertThat(watch.nextJson().getJsonObject("message").getString("content")).isEqualTo("m" + i);
      }
    }
  }

  @AcrossReplicas
  default void chunksPostedOnOneReplicaReachReadersOnBothInOrderAndACompleteOnTheOtherEndsThemAfterTheLast()
      throws Exception {
    ArkHttp other = broker().second();
    String query = unique("q");
    java.util.concurrent.CompletableFuture<EventStreamLines> onOther = readFromBeginning(other, query);
    java.util.concurrent.CompletableFuture<EventStreamLines> onSame = readFromBeginning(ark(), query);
    List<JsonObject> sent = new ArrayList<>();
    try (RawExchange post = RawExchange.chunkedPost(ark().base(), "/stream/" + query, "application/x-ndjson")) {
      for (int i = 0; i < 200; i++) {
        JsonObject chunk = chunk(query, "token " + i);
        post.line(chunk.encode());
        sent.add(chunk);
      }
      assertThat(post.finish(PROMPTLY).status()).isEqualTo(200);
    }
    // The executor's /complete is a request of its own, which the Service may send to the other replica.
    assertThat(complete(other, query).status()).isEqualTo(200);
    try (EventStreamLines first = opened(onOther); EventStreamLines second = opened(onSame)) {
      assertRelayedChunksThenDone(relayedToTheDashboard(first), sent);
      assertRelayedChunksThenDone(relayedToTheDashboard(second), sent);
    }
    try (EventStreamLines late = opened(readFromBeginning(other, query))) {
      assertRelayedChunksThenDone(relayedToTheDashboard(late), sent);
    }
  }

  /** The Service sends each executor's long post to one replica and its overtaking /complete to the other. */
  @AcrossReplicas
  default void completionsOnOneReplicaOvertakingPostsOnTheOtherEndEveryReader() throws Exception {
    completionsOvertakingTheirPostsEndEveryReader(ark(), broker().second(), 1);
    completionsOvertakingTheirPostsEndEveryReader(ark(), broker().second(), 20);
  }

  @AcrossReplicas
  default void eventsAndTheirSessionWrittenOnOneReplicaShowOnTheOther() throws Exception {
    ArkHttp other = broker().second();
    String session = unique("s");
    String uid = unique("uid");
    try (EventStreamLines watch = other.watch("/events?watch=true&session_id=" + session)) {
      assertThat(watch.nextLine(PROMPTLY)).isEqualTo(": connected");
      JsonObject start = started(uid, session);
      JsonObject done = completed(uid, session);
      postEvent(ark(), start);
      assertThat(items(other.get("/events/" + uid))).extracting(Checks::withoutCursor).containsExactly(start);
      postEvent(ark(), done);
      Response read = other.get("/sessions/" + session);
      assertThat(read.status()).isEqualTo(200);
      assertThat(read.json().getJsonObject("queries").getJsonObject("q-1").getString("phase")).isEqualTo("done");
      assertThat(withoutCursor(watch.nextJson())).isEqualTo(start);
      assertThat(withoutCursor(watch.nextJson())).isEqualTo(done);
    }
  }

  @AcrossReplicas
  default void spansPostedOnOneReplicaShowOnTheOther() throws Exception {
    ArkHttp other = broker().second();
    String session = unique("s");
    String trace = unique("trace");
    try (EventStreamLines watch = other.watch("/traces?watch=true&session_id=" + session)) {
      assertThat(watch.nextLine(PROMPTLY)).isEqualTo(": connected");
      JsonObject span = OtlpRequests.jsonSpan(trace, "s1", session);
      postOtlpJson(ark(), List.of(span));
      assertThat(other.get("/traces/" + trace).json().getJsonArray("spans")).hasSize(1);
      assertThat(items(other.get("/traces?session_id=" + session))).hasSize(1);
      assertThat(withoutCursor(watch.nextJson()).getString("spanId")).isEqualTo("s1");
    }
  }

  @AcrossReplicas
  default void anEventWatchResumesOnTheOtherReplicaWithoutGapsOrDuplicates() throws Exception {
    assertEventWatchResumes(ark(), ark(), broker().second());
  }

  @AcrossReplicas
  default void aTraceWatchResumesOnTheOtherReplicaWithoutGapsOrDuplicates() throws Exception {
    assertTraceWatchResumes(ark(), ark(), broker().second());
  }

  @AcrossReplicas
  default void aMessageWatchResumesOnTheOtherReplicaFromItsCursor() throws Exception {
    ArkHttp other = broker().second();
    String conversation = unique("conv");
    for (int i = 0; i < 3; i++) {
      ark().postJson("/messages", messages(conversation, "q-1", chat("user", "m" + i)));
    }
    long cursor = items(ark().get("/messages?conversation_id=" + conversation)).get(0).getLong("sequence");
    try (EventStreamLines watch = other.watch("/messages?watch=true&conversation_id=" + conversation + "&cursor="
        + cursor)) {
      assertThat(watch.nextJson().getJsonObject("message").getString("content")).isEqualTo("m1");
      assertThat(watch.nextJson().getJsonObject("message").getString("content")).isEqualTo("m2");
      assertThat(watch.dataWithin(Duration.ofMillis(300))).as("nothing more").isNull();
    }
  }
}
