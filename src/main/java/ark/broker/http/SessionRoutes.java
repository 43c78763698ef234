package ark.broker.http;

import ark.broker.auth.Actor;
import ark.broker.bus.EventStore;
import ark.broker.bus.Messages.QuerySessionChanged;
import ark.broker.bus.QueryActivity;
import ark.broker.bus.QuerySessionStore;
import ark.broker.bus.QuerySessionStore.SessionQuery;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * Ark's sessions as Ark's broker serves them to ark-api and the dashboard: the whole store without {@code limit},
 * pages with filters, sort and status counts with it, one session, the watch (every session, then each change,
 * every item carrying the {@code sequence} it resumes from), {@code POST /sessions}, a Query taken out of them and
 * the purge. Writes go to the
 * events log, which every replica's sessions are projected from.
 */
final class SessionRoutes {
  private final QuerySessionStore sessions;
  private final EventStore events;
  private final ArkWatches<QuerySessionChanged> watches;

  SessionRoutes(QuerySessionStore sessions, EventStore events, ArkWatches<QuerySessionChanged> watches) {
    this.sessions = sessions;
    this.events = events;
    this.watches = watches;
  }

  void mount(Router router, ArkRoutes routes) {
    routes.get(router, "/sessions", this::list);
    routes.get(router, "/sessions/:sessionId", this::one);
    routes.postJson(router, "/sessions", this::post);
    routes.purge(router, "/sessions", "GET, POST", ctx -> ArkRoutes.deleted(ctx, events.purgeSessions(ArkRoutes.actor(ctx)),
        "Sessions purged"));
    routes.delete(router, "/sessions/queries/:queryName", this::forgetQuery);
  }

  /**
   * Ark's Query finalizer: the Query leaves every session that lists it ({@code {"removed": n}}, how many did; 0 for
   * one no session lists, never 404).
   */
  private void forgetQuery(RoutingContext ctx) {
    Actor actor = ArkRoutes.actor(ctx);
    String query = ctx.pathParam("queryName");
    sessions.sessionsOf(actor, query)
        .compose(listing -> Future.all(listing.stream()
            .map(session -> events.forgetSessionQuery(actor, session, query)).toList()).map(forgotten -> listing.size()))
        .onSuccess(removed -> ArkRoutes.json(ctx, 200, new JsonObject().put("removed", removed)))
        .onFailure(ctx::fail);
  }

  private void list(RoutingContext ctx) {
    boolean watching = ArkQuery.watching(ctx);
    String session = ArkQuery.text(ctx, "session_id");
    String status = ArkQuery.oneOf(ctx, "status", "active", "idle", "error");
    String sort = ArkQuery.oneOf(ctx, "sort", "date", "name", "conversations");
    String order = ArkQuery.oneOf(ctx, "order", "asc", "desc");
    Long from = date(ctx, "dateFrom");
    Long to = date(ctx, "dateTo");
    String search = ctx.queryParams().get("search");
    Actor actor = ArkRoutes.actor(ctx);
    if (watching) {
      // Upstream sends every session first, then each change: the replay starts at the beginning unless a cursor
      // (the sequence of an item read before) says where.
      Long cursor = ArkQuery.nonNegative(ctx, "cursor");
      watches.open(ctx, changed -> session == null || session.equals(changed.sessionId()))
          .from(cursor == null ? 0 : cursor, (after, limit) -> sessions.changes(actor, session, after, limit));
      return;
    }
    String cursorText = ctx.queryParams().get("cursor");
    String limitText = ctx.queryParams().get("limit");
    if (isEmpty(cursorText) && isEmpty(limitText)) {
      sessions.all(actor).onSuccess(all -> ArkRoutes.items(ctx, new ItemsBody().pieces(all)))
          .onFailure(ctx::fail);
      return;
    }
    int limit = ArkQuery.pageLimit(ctx);
    int offset = offset(cursorText);
    sessions.page(actor, new SessionQuery(status, sort, !"asc".equals(order), from, to,
            isEmpty(search) ? null : search, offset, limit))
        .onSuccess(page -> {
          ArkRoutes.items(ctx, new ItemsBody().text("{\"items\":").items(page.items())
              .text(",\"total\":" + page.total() + ",\"hasMore\":" + page.hasMore()
                  + (page.hasMore() ? ",\"nextCursor\":" + page.nextOffset() : "")
                  + ",\"statusCounts\":" + new JsonObject().put("active", page.statusCounts().active())
                  .put("idle", page.statusCounts().idle()).put("error", page.statusCounts().error()).encode() + "}")
              );
        })
        .onFailure(ctx::fail);
  }

  private void one(RoutingContext ctx) {
    sessions.session(ArkRoutes.actor(ctx), ctx.pathParam("sessionId")).onSuccess(session -> {
      if (session == null) {
        ctx.fail(ArkProblem.notFound("Session not found"));
      } else {
        ArkRoutes.rawJson(ctx, 200, Buffer.buffer(session));
      }
    }).onFailure(ctx::fail);
  }

  /** What a caller reports of a Query of a session; without a {@code queryName} it is dropped, as upstream does. */
  private void post(RoutingContext ctx) {
    ArkBodies body = ArkBodies.decoded(ctx);
    body.text("sessionId", true);
    body.check();
    ObjectNode fields = body.body();
    QueryActivity activity = QueryActivities.of(fields, QueryActivities.text(fields, "_reason"),
        System.currentTimeMillis());
    if (activity == null) {
      ArkRoutes.json(ctx, 201, new JsonObject().put("status", "success"));
      return;
    }
    events.recordActivity(ArkRoutes.actor(ctx), activity)
        .onSuccess(recorded -> ArkRoutes.json(ctx, 201, new JsonObject().put("status", "success")))
        .onFailure(ctx::fail);
  }

  /** Upstream's page cursor: an offset into the selected sessions. */
  private static int offset(String cursor) {
    if (isEmpty(cursor)) {
      return 0;
    }
    try {
      int offset = Integer.parseInt(cursor.trim());
      if (offset >= 0) {
        return offset;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw ArkProblem.pagination("cursor must be a non-negative integer");
  }

  /** An instant or a date (midnight UTC) as JavaScript's Date reads them, in epoch milliseconds, or null. */
  private static Long date(RoutingContext ctx, String name) {
    String text = ctx.queryParams().get(name);
    if (isEmpty(text)) {
      return null;
    }
    Instant at = ArkDates.instant(text);
    if (at == null) {
      try {
        at = LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
      } catch (DateTimeParseException notADate) {
        throw ArkProblem.invalid(name + ": Invalid date: expected an ISO-8601 date or date-time, received " + text);
      }
    }
    return ArkDates.epochMillis(at, name, text);
  }

  private static boolean isEmpty(String text) {
    return text == null || text.isEmpty();
  }
}
