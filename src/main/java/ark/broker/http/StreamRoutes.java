package ark.broker.http;

import ark.broker.bus.Addresses;
import ark.broker.bus.Messages.StreamChunk;
import ark.broker.bus.Messages.StreamEnded;
import ark.broker.bus.StreamStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * LLM streams as Ark's broker serves them: {@code POST /stream/{query}} (NDJSON, read as it arrives),
 * {@code POST /stream/{query}/complete}, {@code GET /stream/{query}} (an event stream ending with {@code [DONE]}), the
 * firehose {@code GET /stream} (paginated, or watched) and {@code DELETE /stream}. The chunks and ends the store
 * publishes reach this event loop's readers through one subscription each.
 */
final class StreamRoutes {
  private final StreamStore streams;
  private final ArkApiSettings settings;
  private final ArkWatches<StreamChunk> firehose;
  /** The readers of each Query's stream on this event loop. */
  private final Map<String, List<StreamReader>> readers = new HashMap<>();
  private MessageConsumer<StreamEnded> ends;

  StreamRoutes(StreamStore streams, ArkApiSettings settings) {
    this.streams = streams;
    this.settings = settings;
    this.firehose = new ArkWatches<>(Addresses.STREAM_CHUNKS, settings, this::toReaders);
  }

  Future<Void> start(Vertx vertx) {
    ends = vertx.eventBus().localConsumer(Addresses.STREAM_ENDED, message -> {
      List<StreamReader> of = readers.get(message.body().queryId());
      if (of != null) {
        List.copyOf(of).forEach(reader -> reader.ended(message.body().sequence()));
      }
    });
    return ends.completion().compose(listening -> firehose.start(vertx));
  }

  Future<Void> stop() {
    return firehose.stop().eventually(() -> ends == null ? Future.succeededFuture() : ends.unregister());
  }

  void endAll() {
    firehose.endAll();
    readers.values().stream().flatMap(List::stream).toList().forEach(StreamReader::close);
  }

  void mount(Router router, ArkRoutes routes) {
    routes.post(router, "/stream/:query/complete", this::complete);
    routes.post(router, "/stream/:query", ctx -> NdjsonIngest.run(ctx, streams, ctx.pathParam("query"),
        settings.maxStreamLineBytes(), routes.json()));
    routes.get(router, "/stream/:query", this::read);
    routes.get(router, "/stream", this::firehose);
    routes.purge(router, "/stream", "GET", ctx -> streams.purge(ArkRoutes.actor(ctx))
        .onSuccess(purged -> ArkRoutes.json(ctx, 200, new JsonObject().put("status", "success")
            .put("message", "Stream data purged")))
        .onFailure(ctx::fail));
  }

  private void complete(RoutingContext ctx) {
    String query = ctx.pathParam("query");
    streams.complete(ArkRoutes.actor(ctx), query).onSuccess(completion -> {
      if (completion == StreamStore.Completion.NOT_FOUND) {
        ctx.fail(ArkProblem.notFound("Stream not found"));
        return;
      }
      ArkRoutes.json(ctx, 200, new JsonObject().put("status",
          completion == StreamStore.Completion.COMPLETED ? "completed" : "already_completed").put("query", query));
    }).onFailure(ctx::fail);
  }

  private void read(RoutingContext ctx) {
    String query = ctx.pathParam("query");
    boolean fromBeginning = Boolean.TRUE.equals(ArkQuery.flag(ctx, "from-beginning"));
    Long waitSeconds = ArkQuery.nonNegative(ctx, "wait-for-query");
    ArkQuery.nonNegative(ctx, "max-chunk-size");
    List<StreamReader> of = readers.computeIfAbsent(query, id -> new ArrayList<>());
    if (of.size() >= settings.maxReadersPerStream()) {
      if (of.isEmpty()) {
        readers.remove(query);
      }
      throw new ArkProblem(503, "SERVICE_UNAVAILABLE", "stream " + query + " already has " + of.size()
          + " readers on this connection's event loop, the most it may; try again later");
    }
    List<StreamReader> opened = new ArrayList<>(1);
    ArkSse sse = ArkSse.open(ctx, settings, () -> forget(query, opened.get(0)));
    StreamReader reader = new StreamReader(ctx.vertx(), sse, settings.streamReaderIdleMillis());
    opened.add(reader);
    of.add(reader);
    if (waitSeconds != null) {
      // As upstream: between 1 s and 5 min.
      reader.waitForQuery(Math.max(1, Math.min(300, waitSeconds)) * 1000);
    }
    streams.read(ArkRoutes.actor(ctx), query, fromBeginning)
        .onSuccess(reader::started)
        .onFailure(failure -> reader.close());
  }

  private void firehose(RoutingContext ctx) {
    if (ArkQuery.watching(ctx)) {
      firehose.open(ctx, chunk -> true).live();
      return;
    }
    Integer limit = ArkQuery.limit(ctx);
    streams.firehose(ArkRoutes.actor(ctx), ArkQuery.cursor(ctx), limit == null ? ArkQuery.DEFAULT_LIMIT : limit)
        .onSuccess(page -> ArkRoutes.page(ctx, page))
        .onFailure(ctx::fail);
  }

  /** Every chunk of a Query's stream reaches its readers here too, beside the firehose's watches. */
  private void toReaders(StreamChunk chunk) {
    List<StreamReader> of = readers.get(chunk.queryId());
    if (of != null) {
      List.copyOf(of).forEach(reader -> reader.chunk(chunk));
    }
  }

  private void forget(String query, StreamReader reader) {
    reader.gone();
    List<StreamReader> of = readers.get(query);
    if (of != null && of.remove(reader) && of.isEmpty()) {
      readers.remove(query);
    }
  }
}
