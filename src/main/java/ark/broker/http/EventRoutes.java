package ark.broker.http;

import ark.broker.auth.Actor;
import ark.broker.bus.EventStore;
import ark.broker.bus.EventStore.EventFilter;
import ark.broker.bus.Messages.EventAppended;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.Map;
import java.util.Objects;

/**
 * Query operation events as Ark's broker serves them: {@code POST /events} as the controller sends them (fire and
 * forget, unordered, expecting exactly 201), the lists by session and by Query, their watches (which resume from
 * the {@code sequence} every item carries, on any replica), and the deletions of the controller's finalizer and of
 * ark-api, with upstream's bodies and statuses.
 */
final class EventRoutes {
  private final EventStore events;
  private final ArkWatches<EventAppended> watches;

  EventRoutes(EventStore events, ArkWatches<EventAppended> watches) {
    this.events = events;
    this.watches = watches;
  }

  void mount(Router router, ArkRoutes routes) {
    routes.postJson(router, "/events", this::post);
    routes.get(router, "/events", ctx -> list(ctx, null));
    routes.get(router, "/events/:queryId", ctx -> list(ctx, ctx.pathParam("queryId")));
    routes.purge(router, "/events", "GET, POST", ctx -> ArkRoutes.deleted(ctx, events.deleteAll(ArkRoutes.actor(ctx)),
        "Event data purged"));
    routes.delete(router, "/events/:queryId", ctx -> ArkRoutes.deleted(ctx,
        events.deleteQueryEvents(ArkRoutes.actor(ctx), ctx.pathParam("queryId")),
        "Query " + ctx.pathParam("queryId") + " events deleted"));
  }

  private void post(RoutingContext ctx) {
    ArkBodies body = ArkBodies.decoded(ctx);
    ArkBodies data = body.object("data");
    String queryId = data == null ? null : data.text("queryId", true);
    Long ttl = body.positive("ttl_seconds");
    body.check();
    ObjectNode posted = body.body();
    long now = System.currentTimeMillis();
    JsonNode reason = posted.get("reason");
    EventStore.NewEvent event = new EventStore.NewEvent(queryId, QueryActivities.text(posted.get("data"), "sessionId"),
        ArkBodies.compact(stored(posted)), ttl, QueryActivities.of(posted.get("data"),
            reason != null && reason.isTextual() ? reason.textValue() : null, QueryActivities.timestamp(posted, now)));
    events.append(ArkRoutes.actor(ctx), event)
        .onSuccess(sequence -> ArkRoutes.json(ctx, 201, new JsonObject().put("status", "success")))
        .onFailure(ctx::fail);
  }

  /**
   * The event as upstream stores it: {@code data} first (its {@code queryId} first), then the other fields in the
   * order sent, without {@code ttl_seconds}; and without a {@code sequence} of the sender's, which is the store's.
   */
  private static ObjectNode stored(ObjectNode posted) {
    ObjectNode stored = posted.objectNode();
    ObjectNode data = stored.putObject("data");
    ObjectNode sent = (ObjectNode) posted.get("data");
    data.set("queryId", sent.get("queryId"));
    sent.properties().forEach(field -> data.set(field.getKey(), field.getValue()));
    for (Map.Entry<String, JsonNode> field : posted.properties()) {
      if (!field.getKey().equals("data") && !field.getKey().equals("ttl_seconds") && !field.getKey().equals("sequence")) {
        stored.set(field.getKey(), field.getValue());
      }
    }
    return stored;
  }

  /** A page of events, or their watch; of a Query when {@code queryId} is given, else of all or of a session. */
  private void list(RoutingContext ctx, String queryId) {
    boolean watching = ArkQuery.watching(ctx);
    String session = queryId == null ? ArkQuery.text(ctx, "session_id") : null;
    Long cursor = ArkQuery.nonNegative(ctx, "cursor");
    boolean fromBeginning = Boolean.TRUE.equals(ArkQuery.flag(ctx, "from-beginning"));
    EventFilter filter = new EventFilter(queryId, session);
    Actor actor = ArkRoutes.actor(ctx);
    if (watching) {
      // Upstream replays a Query's events from the beginning or a cursor, and all events from a cursor only.
      Long from = queryId != null && fromBeginning ? Long.valueOf(0) : cursor;
      watches.open(ctx, event -> (queryId == null || queryId.equals(event.queryId()))
          && (session == null || Objects.equals(session, event.sessionId())))
          .from(from, (after, limit) -> events.events(actor, filter, after, limit));
      return;
    }
    int limit = ArkQuery.pageLimit(ctx);
    events.events(actor, filter, cursor == null ? 0 : cursor, limit)
        .onSuccess(page -> ArkRoutes.page(ctx, page))
        .onFailure(ctx::fail);
  }
}
