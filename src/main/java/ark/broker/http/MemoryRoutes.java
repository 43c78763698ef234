package ark.broker.http;

import ark.broker.auth.Actor;
import ark.broker.bus.EventStore;
import ark.broker.bus.MemoryStore;
import ark.broker.bus.MemoryStore.MessageFilter;
import ark.broker.bus.Messages.MemoryAppended;
import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Conversation memory as Ark's broker serves it: {@code /messages} (paginated, and watched over SSE),
 * {@code /conversations}, {@code /memory-status} and the deletions Ark's controller and ark-api call, with upstream's
 * bodies and statuses. A conversation read without {@code limit} returns the whole conversation, which executors
 * of Ark 0.1.67 need (they cannot follow a numeric {@code nextCursor}).
 */
final class MemoryRoutes {
  private final MemoryStore memory;
  private final EventStore events;
  private final ArkWatches<MemoryAppended> watches;

  MemoryRoutes(MemoryStore memory, EventStore events, ArkWatches<MemoryAppended> watches) {
    this.memory = memory;
    this.events = events;
    this.watches = watches;
  }

  void mount(Router router, ArkRoutes routes) {
    routes.post(router, "/conversations", this::newConversation);
    routes.postJson(router, "/messages", this::append);
    routes.get(router, "/messages", this::messages);
    routes.get(router, "/memory-status", this::status);
    routes.get(router, "/conversations", ctx -> done(ctx, memory.conversations(ArkRoutes.actor(ctx))
        .map(ids -> new JsonObject().put("conversations", new JsonArray(List.copyOf(ids))))));
    routes.get(router, "/conversations/:id", this::conversation);
    routes.delete(router, "/conversations/:id", ctx -> deleted(ctx, memory.deleteConversation(ArkRoutes.actor(ctx),
        ctx.pathParam("id")), "Conversation " + ctx.pathParam("id") + " deleted"));
    routes.delete(router, "/conversations/:cid/queries/:qid/messages", ctx -> deleted(ctx,
        memory.deleteQueryMessages(ArkRoutes.actor(ctx), ctx.pathParam("cid"), ctx.pathParam("qid")),
        "Query " + ctx.pathParam("qid") + " messages deleted from conversation " + ctx.pathParam("cid")));
    routes.delete(router, "/queries/:qid/messages", ctx -> deleted(ctx,
        memory.deleteQueryMessages(ArkRoutes.actor(ctx), null, ctx.pathParam("qid")),
        "Query " + ctx.pathParam("qid") + " messages deleted"));
    routes.delete(router, "/conversations", ctx -> deleted(ctx, memory.deleteAll(ArkRoutes.actor(ctx)),
        "All conversations deleted"));
    routes.purge(router, "/messages", "GET, POST", ctx -> deleted(ctx, memory.deleteAll(ArkRoutes.actor(ctx)), "Memory purged"));
  }

  /** A new conversation's id; nothing is stored until its first message. */
  private void newConversation(RoutingContext ctx) {
    ArkRoutes.json(ctx, 201, new JsonObject().put("conversation_id", UUID.randomUUID().toString()));
  }

  private void append(RoutingContext ctx) {
    ArkBodies body = ArkBodies.decoded(ctx);
    String conversation = body.text("conversation_id", true);
    String query = body.text("query_id", true);
    List<JsonNode> messages = body.array("messages");
    Long ttl = body.positive("ttl_seconds");
    body.check();
    // A post of no message still says which conversation the Query belongs to: its sessions show it at once.
    Future<Void> writing = messages.isEmpty() ? events.attachQuery(ArkRoutes.actor(ctx), query, conversation)
        : memory.append(ArkRoutes.actor(ctx), new MemoryStore.NewMessages(conversation, query,
            messages.stream().map(ArkBodies::compact).toList(), ttl));
    writing
        .onSuccess(written -> ctx.response().setStatusCode(200).putHeader("Content-Length", "0").end())
        .onFailure(ctx::fail);
  }

  private void messages(RoutingContext ctx) {
    boolean watching = ArkQuery.watching(ctx);
    Long cursor = ArkQuery.nonNegative(ctx, "cursor");
    String conversation = ArkQuery.text(ctx, "conversation_id");
    if (watching) {
      watch(ctx, conversation, cursor);
      return;
    }
    String query = ArkQuery.text(ctx, "query_id");
    Integer limit = ArkQuery.limit(ctx);
    int pageSize = limit != null ? limit : conversation != null ? 0 : ArkQuery.DEFAULT_LIMIT;
    memory.messages(ArkRoutes.actor(ctx), new MessageFilter(conversation, query), cursor == null ? 0 : cursor, pageSize)
        .onSuccess(page -> ArkRoutes.page(ctx, page))
        .onFailure(ctx::fail);
  }

  /** Every message of the conversation, or 404 when it has none. */
  private void conversation(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    memory.messages(ArkRoutes.actor(ctx), new MessageFilter(id, null), 0, 0).onSuccess(page -> {
      if (page.items().isEmpty()) {
        ctx.fail(ArkProblem.notFound("Conversation not found"));
        return;
      }
      ArkRoutes.items(ctx, new ItemsBody().text("{\"conversation_id\":" + ArkRoutes.quoted(id) + ",\"messages\":")
          .items(page.items()).text("}"));
    }).onFailure(ctx::fail);
  }

  private void status(RoutingContext ctx) {
    done(ctx, memory.status(ArkRoutes.actor(ctx)).map(status -> {
      JsonObject conversations = new JsonObject();
      status.conversations().forEach((id, counts) -> conversations.put(id, new JsonObject()
          .put("message_count", counts.messages()).put("query_count", counts.queries())));
      return new JsonObject().put("total_conversations", status.totalConversations())
          .put("total_messages", status.totalMessages()).put("conversations", conversations);
    }));
  }

  /** Live messages of one conversation or of all; from a cursor, what is kept after it first. */
  private void watch(RoutingContext ctx, String conversation, Long cursor) {
    Actor actor = ArkRoutes.actor(ctx);
    ArkWatch<MemoryAppended> watch = watches.open(ctx, appended -> conversation == null
        || Objects.equals(conversation, appended.conversationId()));
    if (cursor == null) {
      watch.live();
    } else {
      watch.replay(cursor, (after, limit) -> memory.messages(actor, new MessageFilter(conversation, null), after, limit));
    }
  }

  private static void deleted(RoutingContext ctx, Future<Void> deleting, String message) {
    done(ctx, deleting.map(nothing -> new JsonObject().put("status", "success").put("message", message)));
  }

  private static void done(RoutingContext ctx, Future<JsonObject> answer) {
    answer.onSuccess(body -> ArkRoutes.json(ctx, 200, body)).onFailure(ctx::fail);
  }
}
