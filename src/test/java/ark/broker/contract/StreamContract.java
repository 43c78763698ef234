package ark.broker.contract;

import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static ark.broker.contract.Checks.assertError;
import static ark.broker.contract.Checks.assertSuccess;
import static ark.broker.contract.Checks.chunk;
import static ark.broker.contract.Checks.errorChunk;
import static ark.broker.contract.Checks.items;
import static ark.broker.contract.Checks.unique;
import static ark.broker.contract.Checks.withoutCursor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/** LLM chunk streams: {@code POST /stream/{q}} (NDJSON), {@code /complete}, the readers, the firehose, the purge. */
public interface StreamContract extends ContractCheck {
  Duration PROMPTLY = Duration.ofSeconds(5);

  /** One NDJSON POST of {@code body} as it is; returns the answer. */
  default Response postNdjson(ArkHttp replica, String query, String body) throws Exception {
    return replica.post("/stream/" + query, "application/x-ndjson", body.getBytes(StandardCharsets.UTF_8));
  }

  /** Posts {@code chunks}, one line each, in one request; checks they were all counted. */
  default void postChunks(ArkHttp replica, String query, JsonObject... chunks) throws Exception {
    StringBuilder body = new StringBuilder();
    for (JsonObject chunk : chunks) {
      body.append(chunk.encode()).append('\n');
    }
    Response response = postNdjson(replica, query, body.toString());
    assertThat(response.status()).as("POST /stream/%s: %s", query, response).isEqualTo(200);
    assertThat(response.json().getInteger("chunks_received")).isEqualTo(chunks.length);
  }

  default Response complete(ArkHttp replica, String query) throws Exception {
    return replica.postJson("/stream/" + query + "/complete", "{}");
  }

  /** A reader of {@code GET /stream/{q}?from-beginning=true}, as ark-api opens it for the dashboard's chat. */
  default java.util.concurrent.CompletableFuture<EventStreamLines> readFromBeginning(ArkHttp replica, String query) {
    return replica.watchAsync("/stream/" + query + "?from-beginning=true");
  }

  /** Reads {@code expected} chunk events, then {@code [DONE]}, then the end of the stream. */
  default void assertChunksThenDone(EventStreamLines reader, List<JsonObject> expected) throws Exception {
    for (JsonObject chunk : expected) {
      String data = reader.nextData();
      assertThat(data).as("a chunk; lines so far %s", reader.taken()).isNotNull();
      assertThat(new JsonObject(data)).isEqualTo(chunk);
    }
    assertThat(reader.nextData()).as("after the chunks").isEqualTo("[DONE]");
    assertThat(reader.endsWithin(PROMPTLY)).as("closed after [DONE]").isTrue();
  }

  default EventStreamLines opened(java.util.concurrent.CompletableFuture<EventStreamLines> reader) throws Exception {
    return reader.get(10, TimeUnit.SECONDS);
  }

  @Test
  default void anNdjsonPostCountsTheLinesItParsedAndSkipsTheOthers() throws Exception {
    String query = unique("sq");
    String body = chunk(query, "Hel").encode() + "\n" + chunk(query, "lo").encode() + "\nnot-json\n\n"
        + chunk(query, "!").encode() + "\n";
    Response response = postNdjson(ark(), query, body);
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.json()).isEqualTo(new JsonObject().put("status", "stream_processed").put("query", query)
        .put("chunks_received", 3));
  }

  @Test
  default void aReaderFromTheBeginningGetsEveryChunkInOrderThenDone() throws Exception {
    String query = unique("sq");
    postChunks(ark(), query, chunk(query, "a"), chunk(query, "b"));
    postChunks(ark(), query, chunk(query, "c"));
    assertThat(complete(ark(), query).status()).isEqualTo(200);
    try (EventStreamLines reader = opened(readFromBeginning(ark(), query))) {
      assertThat(reader.status()).isEqualTo(200);
      assertThat(reader.header("Content-Type")).startsWith("text/event-stream");
      assertChunksThenDone(reader, List.of(chunk(query, "a"), chunk(query, "b"), chunk(query, "c")));
    }
  }

  @Test
  default void completeAnswersOnceThenAlreadyCompletedAnd404ForAnUnknownStream() throws Exception {
    String query = unique("sq");
    postChunks(ark(), query, chunk(query, "a"));
    Response first = complete(ark(), query);
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.json()).isEqualTo(new JsonObject().put("status", "completed").put("query", query));
    assertThat(complete(ark(), query).json())
        .isEqualTo(new JsonObject().put("status", "already_completed").put("query", query));
    assertThat(assertError(complete(ark(), unique("never")), 404, "NOT_FOUND")).isEqualTo("Stream not found");
  }

  @Test
  default void aReaderGetsEachChunkWhileTheLongPostIsStillOpen() throws Exception {
    String query = unique("sq");
    java.util.concurrent.CompletableFuture<EventStreamLines> opening = readFromBeginning(ark(), query);
    try (RawExchange post = RawExchange.chunkedPost(ark().base(), "/stream/" + query, "application/x-ndjson")) {
      post.line(chunk(query, "one").encode());
      try (EventStreamLines reader = opened(opening)) {
        assertThat(reader.nextJson()).isEqualTo(chunk(query, "one"));
        post.line(chunk(query, "two").encode());
        assertThat(reader.nextJson()).isEqualTo(chunk(query, "two"));
        RawExchange.Answer answer = post.finish(PROMPTLY);
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.json().getInteger("chunks_received")).isEqualTo(2);
        assertThat(complete(ark(), query).status()).isEqualTo(200);
        assertChunksThenDone(reader, List.of());
      }
    }
  }

  @Test
  default void waitForQueryEndsAQuietStreamWithATimeoutErrorThenDone() throws Exception {
    try (EventStreamLines reader = ark().watch("/stream/" + unique("never") + "?wait-for-query=1")) {
      JsonObject error = reader.nextJson().getJsonObject("error");
      assertThat(error.getString("type")).isEqualTo("timeout_error");
      assertThat(error.getString("code")).isEqualTo("timeout");
      assertThat(error.getString("message")).isEqualTo("Request timeout waiting for streaming query response");
      assertThat(reader.nextData()).isEqualTo("[DONE]");
      assertThat(reader.endsWithin(PROMPTLY)).isTrue();
    }
  }

  @Test
  default void streamReaderParametersAreChecked() throws Exception {
    String query = unique("sq");
    assertError(ark().get("/stream/" + query + "?wait-for-query=abc"), 400, "VALIDATION_ERROR");
    assertError(ark().get("/stream/" + query + "?from-beginning=maybe"), 400, "VALIDATION_ERROR");
  }

  @Test
  default void aLiveErrorChunkEndsTheStream() throws Exception {
    String query = unique("sq");
    postChunks(ark(), query, chunk(query, "before"));
    try (EventStreamLines reader = opened(readFromBeginning(ark(), query))) {
      assertThat(reader.nextJson()).isEqualTo(chunk(query, "before"));
      postChunks(ark(), query, errorChunk(query));
      assertThat(reader.nextJson()).isEqualTo(errorChunk(query));
      assertThat(reader.nextData()).isEqualTo("[DONE]");
      assertThat(reader.endsWithin(PROMPTLY)).isTrue();
    }
  }

  @BeyondUpstream("a replayed error chunk is written but the stream stays open with no [DONE]")
  default void aReplayedErrorChunkEndsTheStreamToo() throws Exception {
    String query = unique("sq");
    postChunks(ark(), query, chunk(query, "before"), errorChunk(query));
    try (EventStreamLines reader = opened(readFromBeginning(ark(), query))) {
      assertThat(reader.nextJson()).isEqualTo(chunk(query, "before"));
      assertThat(reader.nextJson()).isEqualTo(errorChunk(query));
      assertThat(reader.nextData(PROMPTLY)).isEqualTo("[DONE]");
      assertThat(reader.endsWithin(PROMPTLY)).isTrue();
    }
  }

  @BeyondUpstream("a final line without a newline is dropped (chunks_received 0)")
  default void theLastLineWithoutANewlineIsKept() throws Exception {
    String query = unique("sq");
    Response response = postNdjson(ark(), query, chunk(query, "a").encode() + "\n" + chunk(query, "last").encode());
    assertThat(response.json().getInteger("chunks_received")).isEqualTo(2);
    assertThat(complete(ark(), query).status()).isEqualTo(200);
    try (EventStreamLines reader = opened(readFromBeginning(ark(), query))) {
      assertChunksThenDone(reader, List.of(chunk(query, "a"), chunk(query, "last")));
    }
  }

  @BeyondUpstream("the JSON body parser swallows the body, and the request hangs with no answer")
  default void aStreamPostSentAsApplicationJsonIsAnswered() throws Exception {
    String query = unique("sq");
    try {
      Response response = ark().send(ark().request("/stream/" + query).timeout(PROMPTLY)
          .header("Content-Type", "application/json")
          .POST(java.net.http.HttpRequest.BodyPublishers.ofString(chunk(query, "a").encode() + "\n")));
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.json().getInteger("chunks_received")).isEqualTo(1);
    } catch (HttpTimeoutException hung) {
      fail("no answer within " + PROMPTLY);
    }
  }

  @BeyondUpstream("nothing is written, not even the status line, until the first chunk")
  default void aStreamReaderGetsItsHeadersAtOnce() throws Exception {
    try (EventStreamLines reader = ark().watchAsync("/stream/" + unique("idle")).get(3, TimeUnit.SECONDS)) {
      assertThat(reader.status()).isEqualTo(200);
      assertThat(reader.header("Content-Type")).startsWith("text/event-stream");
    } catch (TimeoutException none) {
      fail("no response headers within 3 s");
    }
  }

  @BeyondUpstream("no heartbeat on GET /stream/{query}: a reader cannot tell an idle stream from a hung one (#3487)")
  default void anIdleStreamReaderGetsHeartbeats() throws Exception {
    java.util.concurrent.CompletableFuture<EventStreamLines> opening = ark().watchAsync("/stream/" + unique("idle"));
    try (EventStreamLines reader = opening.get(broker().heartbeatWithin().toMillis(), TimeUnit.MILLISECONDS)) {
      assertThat(reader.commentWithin("heartbeat", broker().heartbeatWithin())).isTrue();
    } catch (TimeoutException none) {
      opening.cancel(true);
      fail("no response headers within " + broker().heartbeatWithin());
    }
  }

  /** The firehose items of {@code queries}, read page after page from the start. */
  private List<JsonObject> firehoseItemsOf(Set<String> queries) throws Exception {
    List<JsonObject> found = new ArrayList<>();
    String cursor = "";
    while (true) {
      Response page = ark().get("/stream?limit=1000" + cursor);
      for (JsonObject item : items(page)) {
        if (queries.contains(item.getJsonObject("data").getString("queryId"))) {
          found.add(item);
        }
      }
      if (!page.json().getBoolean("hasMore")) {
        return found;
      }
      cursor = "&cursor=" + page.json().getLong("nextCursor");
    }
  }

  @Test
  default void theFirehoseListsTheChunksOfEveryQueryWithTheirSequenceNumbers() throws Exception {
    String query = unique("sq");
    String other = unique("sq");
    postChunks(ark(), query, chunk(query, "a"));
    postChunks(ark(), other, chunk(other, "b"));
    assertThat(complete(ark(), query).status()).isEqualTo(200);

    List<JsonObject> items = firehoseItemsOf(Set.of(query, other));
    assertThat(items).hasSize(3);
    for (JsonObject item : items) {
      assertThat(item.fieldNames()).containsExactlyInAnyOrder("sequenceNumber", "timestamp", "data");
      assertThat(item.getString("timestamp")).matches(Checks.ISO_INSTANT);
    }
    assertThat(items.get(0).getJsonObject("data"))
        .isEqualTo(new JsonObject().put("queryId", query).put("chunk", chunk(query, "a")));
    assertThat(items.get(1).getJsonObject("data"))
        .isEqualTo(new JsonObject().put("queryId", other).put("chunk", chunk(other, "b")));
    assertThat(items.get(2).getJsonObject("data"))
        .isEqualTo(new JsonObject().put("queryId", query).put("chunk", "[DONE]").put("complete", true));
    assertThat(items.get(1).getLong("sequenceNumber")).isGreaterThan(items.get(0).getLong("sequenceNumber"));
    assertThat(items.get(2).getLong("sequenceNumber")).isGreaterThan(items.get(1).getLong("sequenceNumber"));

    Response after = ark().get("/stream?limit=1&cursor=" + items.get(0).getLong("sequenceNumber"));
    assertThat(items(after).get(0).getLong("sequenceNumber")).isGreaterThan(items.get(0).getLong("sequenceNumber"));
    assertThat(after.json().getInteger("total")).isPositive();
  }

  @Test
  default void theFirehoseWatchSendsRawChunksAndDoneAsAString() throws Exception {
    String query = unique("sq");
    try (EventStreamLines watch = ark().watch("/stream?watch=true")) {
      assertThat(watch.nextLine(PROMPTLY)).isEqualTo(": connected");
      postChunks(ark(), query, chunk(query, "a"));
      assertThat(withoutCursor(watch.nextJson())).isEqualTo(chunk(query, "a"));
      assertThat(complete(ark(), query).status()).isEqualTo(200);
      assertThat(watch.nextData()).isEqualTo("\"[DONE]\"");
    }
  }

  @Test
  default void purgingTheStreamsForgetsThem() throws Exception {
    String query = unique("sq");
    postChunks(ark(), query, chunk(query, "a"));
    assertSuccess(ark().delete("/stream"), "Stream data purged");
    assertThat(complete(ark(), query).status()).isEqualTo(404);
  }

  @BeyondUpstream("a purge resets the firehose's sequence numbers to 1")
  default void firehoseSequenceNumbersKeepGrowingAcrossAPurge() throws Exception {
    String query = unique("sq");
    postChunks(ark(), query, chunk(query, "a"), chunk(query, "b"));
    List<JsonObject> before = firehoseItemsOf(Set.of(query));
    assertSuccess(ark().delete("/stream"), "Stream data purged");
    postChunks(ark(), query, chunk(query, "c"));
    assertThat(firehoseItemsOf(Set.of(query)).get(0).getLong("sequenceNumber"))
        .isGreaterThan(before.get(1).getLong("sequenceNumber"));
  }

  /** The events a dashboard gets through ark-api's line-by-line relay of the whole of {@code reader}'s stream. */
  default List<String> relayedToTheDashboard(EventStreamLines reader) throws Exception {
    return ArkApiRelay.messages(ArkApiRelay.relay(reader.linesUntilEnd(Duration.ofSeconds(15))));
  }

  /** Every chunk of {@code sent} in order, then {@code [DONE]}, as the dashboard's chat parses them. */
  default void assertRelayedChunksThenDone(List<String> relayed, List<JsonObject> sent) {
    assertThat(relayed).as("relayed events").hasSize(sent.size() + 1);
    for (int i = 0; i < sent.size(); i++) {
      assertThat(new JsonObject(relayed.get(i))).as("chunk %d", i).isEqualTo(sent.get(i));
    }
    assertThat(relayed.get(sent.size())).isEqualTo("[DONE]");
  }

  @Test
  default void aGoExecutorQueryStreamsOneLongPostThenCompletesInASeparateRequest() throws Exception {
    String query = unique("q");
    String conversation = ark().post("/conversations", "application/json", new byte[0]).json()
        .getString("conversation_id");
    String input = new JsonObject(Checks.messages(conversation, query, Checks.chat("system", "be brief"),
        Checks.chat("user", "hello"))).put("ttl_seconds", 3600).encode();
    assertThat(ark().postJson("/messages", input).status()).isEqualTo(200);
    assertThat(items(ark().get("/messages?conversation_id=" + conversation))).hasSize(2);

    java.util.concurrent.CompletableFuture<EventStreamLines> reader = readFromBeginning(ark(), query);
    List<JsonObject> sent = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      sent.add(chunk(query, "token " + i));
    }
    sent.add(new JsonObject().put("type", "tool_approval_request").put("taskId", "task-1").put("toolCalls",
        new io.vertx.core.json.JsonArray().add(new JsonObject().put("id", "call_1").put("name", "delete_repo")))
        .put("timeout", "5m").put("onTimeout", "reject").put("agentName", "agent-" + query)
        .put("agentContext", new JsonObject()));
    sent.add(chunk(query, "").put("ark", new JsonObject().put("query", query).put("completedQuery",
        new JsonObject().put("metadata", new JsonObject().put("name", query)))));
    try (RawExchange post = RawExchange.chunkedPost(ark().base(), "/stream/" + query, "application/x-ndjson")) {
      for (JsonObject line : sent) {
        post.line(line.encode());
      }
      RawExchange.Answer answer = post.finish(PROMPTLY);
      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.json().getInteger("chunks_received")).isEqualTo(sent.size());
    }
    // Go's NotifyCompletion: right after closing the body, on a connection of its own.
    assertThat(complete(ark(), query).status()).isEqualTo(200);
    try (EventStreamLines opened = opened(reader)) {
      assertRelayedChunksThenDone(relayedToTheDashboard(opened), sent);
    }
    String output = Checks.messages(conversation, query, Checks.chat("assistant", "hi"));
    assertThat(ark().postJson("/messages", output).status()).isEqualTo(200);
    assertThat(items(ark().get("/messages?conversation_id=" + conversation))).hasSize(3);
  }

  /**
   * Ark's Go executor under load: one chunked post per Query and, on a connection of its own, the Query's
   * {@code /complete}, which overtakes the post's {@code chunksEach} chunks: for half the streams it is sent before
   * them, for the others right after the post's body ends, before the post is answered. Every {@code /complete}
   * answers 200 and every reader gets every chunk, then {@code [DONE]}.
   *
   * @param poster the replica the posts go to
   * @param completer the replica the completions and the readers go to
   */
  default void completionsOvertakingTheirPostsEndEveryReader(ArkHttp poster, ArkHttp completer, int chunksEach)
      throws Exception {
    int streams = 20;
    byte[] completion = "{}".getBytes(StandardCharsets.UTF_8);
    List<String> queries = new ArrayList<>();
    List<java.util.concurrent.CompletableFuture<EventStreamLines>> readers = new ArrayList<>();
    List<RawExchange> posts = new ArrayList<>();
    List<RawExchange> completions = new ArrayList<>();
    try {
      // Connected and announced up front, so each body reaches the broker the moment it is sent.
      for (int i = 0; i < streams; i++) {
        String query = unique("overtaken");
        queries.add(query);
        readers.add(readFromBeginning(completer, query));
        posts.add(RawExchange.chunkedPost(poster.base(), "/stream/" + query, "application/x-ndjson"));
        completions.add(RawExchange.sizedPost(completer.base(), "/stream/" + query + "/complete", "application/json",
            completion.length));
      }
      List<List<JsonObject>> sent = new ArrayList<>();
      for (int i = 0; i < streams; i++) {
        boolean completedFirst = i % 2 == 0;
        if (completedFirst) {
          completions.get(i).bytesQuietly(completion);
        }
        List<JsonObject> chunks = new ArrayList<>();
        for (int c = 0; c < chunksEach; c++) {
          JsonObject chunk = chunk(queries.get(i), "token " + c);
          posts.get(i).line(chunk.encode());
          chunks.add(chunk);
        }
        sent.add(chunks);
        posts.get(i).end();
        if (!completedFirst) {
          completions.get(i).bytesQuietly(completion);
        }
      }
      for (int i = 0; i < streams; i++) {
        RawExchange.Answer posted = posts.get(i).answer(PROMPTLY);
        assertThat(posted.status()).isEqualTo(200);
        assertThat(posted.json().getInteger("chunks_received")).isEqualTo(chunksEach);
        RawExchange.Answer completed = completions.get(i).answer(Duration.ofSeconds(30));
        assertThat(completed.status()).as("/complete of stream %d of %d: %s", i + 1, streams, completed.body())
            .isEqualTo(200);
      }
      for (int i = 0; i < streams; i++) {
        try (EventStreamLines reader = opened(readers.get(i))) {
          assertRelayedChunksThenDone(relayedToTheDashboard(reader), sent.get(i));
        }
      }
    } finally {
      for (RawExchange exchange : posts) {
        exchange.close();
      }
      for (RawExchange exchange : completions) {
        exchange.close();
      }
    }
  }

  @BeyondUpstream("/complete answers 404 when it arrives before the post's chunk, and readers never get [DONE] "
      + "(5-6 of 20 streams)")
  default void completionsOvertakingOneChunkPostsEndEveryReader() throws Exception {
    completionsOvertakingTheirPostsEndEveryReader(ark(), ark(), 1);
  }

  @BeyondUpstream("/complete answers 404 when it arrives before the post's chunks, and readers never get [DONE] "
      + "(5 of 20 streams)")
  default void completionsOvertakingTwentyChunkBurstsEndEveryReader() throws Exception {
    completionsOvertakingTheirPostsEndEveryReader(ark(), ark(), 20);
  }

  @Test
  default void aPythonSdkExecutorPostsEachChunkOnItsOwn() throws Exception {
    String query = unique("q");
    java.util.concurrent.CompletableFuture<EventStreamLines> reader = readFromBeginning(ark(), query);
    List<JsonObject> sent = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      JsonObject chunk = chunk(query, "word " + i);
      Response response = postNdjson(ark(), query, chunk.encode() + "\n");
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.json().getInteger("chunks_received")).isEqualTo(1);
      sent.add(chunk);
    }
    JsonObject last = chunk(query, "").put("ark", new JsonObject().put("query", query).put("completedQuery",
        new JsonObject().put("metadata", new JsonObject().put("name", query))
            .put("status", new JsonObject().put("phase", "done"))));
    postChunks(ark(), query, last);
    sent.add(last);
    assertThat(complete(ark(), query).status()).isEqualTo(200);
    try (EventStreamLines opened = opened(reader)) {
      assertRelayedChunksThenDone(relayedToTheDashboard(opened), sent);
    }
  }
}
