package ark.broker.mcp;

import ark.broker.bus.Messages.QuestionChange;
import ark.broker.bus.QuestionStore;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.McpServer;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.mcp.protocol.ResourceProvider;
import ark.broker.question.EventType;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionOrder;
import ark.broker.question.QuestionStatus;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

import java.util.List;

/**
 * Questions as MCP resources: {@code ark://questions/pending} (every unanswered question) and
 * {@code ark://questions/{id}} (one question). Subscribers get {@code notifications/resources/updated}
 * when what they watch changes, on their session's standalone stream.
 */
record QuestionResources(QuestionStore store, McpServer server) implements ResourceProvider {
  static final String PENDING = "ark://questions/pending";
  static final String PREFIX = "ark://questions/";
  private static final int MAX_PENDING = 1000;

  @Override
  public Future<List<ObjectNode>> list(RequestContext ctx) {
    return Future.succeededFuture(List.of(McpJson.object()
        .put("uri", PENDING)
        .put("name", "pending-questions")
        .put("title", "Pending questions")
        .put("description", "Every question nobody has answered yet, oldest first (up to " + MAX_PENDING + ")")
        .put("mimeType", "application/json")));
  }

  @Override
  public List<ObjectNode> templates() {
    return List.of(McpJson.object()
        .put("uriTemplate", PREFIX + "{id}")
        .put("name", "question")
        .put("title", "A question")
        .put("description", "One question with its status and answer, by id")
        .put("mimeType", "application/json"));
  }

  @Override
  public boolean owns(String uri) {
    return uri.startsWith(PREFIX) && uri.length() > PREFIX.length();
  }

  @Override
  public Future<ArrayNode> read(RequestContext ctx, String uri) {
    if (uri.equals(PENDING)) {
      return store.list(Caller.actorOf(ctx), new QuestionFilter(QuestionStatus.PENDING, null, null),
          QuestionOrder.OLDEST_FIRST, MAX_PENDING, null).map(page -> {
        ObjectNode body = McpJson.object().put("resourceVersion", page.resourceVersion());
        body.set("questions", QuestionResults.questionsJson(page.items()));
        return contents(uri, body);
      });
    }
    return question(ctx, uri).map(question -> contents(uri, QuestionResults.questionJson(question)));
  }

  /** The pending list always exists; a question's resource exists if the question does. */
  @Override
  public Future<Void> exists(RequestContext ctx, String uri) {
    if (uri.equals(PENDING)) {
      return Future.succeededFuture();
    }
    return question(ctx, uri).mapEmpty();
  }

  private Future<Question> question(RequestContext ctx, String uri) {
    return store.find(Caller.actorOf(ctx), uri.substring(PREFIX.length())).compose(question -> question == null
        ? Future.failedFuture(McpServer.resourceNotFound(uri))
        : Future.succeededFuture(question));
  }

  /** Tells subscribed sessions listening on this replica that a resource they watch changed. */
  void changed(QuestionChange change) {
    server.resourceUpdated(PREFIX + change.question().id());
    if (change.type() != EventType.DELIVERED) {
      server.resourceUpdated(PENDING);
    }
  }

  private static ArrayNode contents(String uri, ObjectNode body) {
    ArrayNode contents = McpJson.array();
    contents.addObject().put("uri", uri).put("mimeType", "application/json").put("text", McpJson.write(body));
    return contents;
  }
}
