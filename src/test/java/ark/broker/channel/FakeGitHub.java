package ark.broker.channel;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** GitHub's issue comments API: create and list (paged), with the token checked as GitHub does. */
final class FakeGitHub extends FakeService {
  static final String TOKEN = "ghp-test-token";
  private static final Pattern COMMENTS = Pattern.compile("/repos/([^/]+)/([^/]+)/issues/(\\d+)/comments");

  /** A comment on an issue, as GitHub keeps it. */
  record Comment(String issue, long id, String body) {
  }

  private final List<Comment> comments = new CopyOnWriteArrayList<>();
  private final AtomicLong ids = new AtomicLong(9000);

  private FakeGitHub() throws IOException {
    super(null);
  }

  static FakeGitHub start() throws IOException {
    return new FakeGitHub();
  }

  List<Comment> commentsOn(String issue) {
    return comments.stream().filter(c -> c.issue().equals(issue)).toList();
  }

  @Override
  Reply reply(Received request) {
    if (!("Bearer " + TOKEN).equals(request.header("Authorization"))) {
      return Reply.json(401, new JsonObject().put("message", "Bad credentials"));
    }
    Matcher matcher = COMMENTS.matcher(request.path());
    if (!matcher.matches()) {
      return Reply.json(404, new JsonObject().put("message", "Not Found"));
    }
    String issue = matcher.group(1) + "/" + matcher.group(2) + "#" + matcher.group(3);
    if (request.method().equals("POST")) {
      Comment comment = new Comment(issue, ids.incrementAndGet(), request.json().getString("body"));
      comments.add(comment);
      return Reply.json(201, json(comment));
    }
    int perPage = Integer.parseInt(request.query().getOrDefault("per_page", "30"));
    int page = Integer.parseInt(request.query().getOrDefault("page", "1"));
    List<Comment> all = commentsOn(issue);
    JsonArray shown = new JsonArray();
    all.stream().skip((long) (page - 1) * perPage).limit(perPage).forEach(comment -> shown.add(json(comment)));
    return new Reply(200, Map.of("Content-Type", "application/json"), shown.encode());
  }

  private static JsonObject json(Comment comment) {
    return new JsonObject().put("id", comment.id()).put("body", comment.body())
        .put("user", new JsonObject().put("login", "ark-bot").put("type", "Bot"));
  }
}
