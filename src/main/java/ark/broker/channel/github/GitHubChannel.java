package ark.broker.channel.github;

import ark.broker.channel.Answering;
import ark.broker.channel.ApiClient;
import ark.broker.channel.Channel;
import ark.broker.channel.Destination;
import ark.broker.channel.Directory;
import ark.broker.channel.Inbound;
import ark.broker.question.Delivery;
import ark.broker.question.EventType;
import ark.broker.question.Question;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * Questions as comments on GitHub issues and pull requests: {@code github:owner/repo#123} comments there
 * (if {@code channels.github.repositories} lists the repository, or is empty), plain {@code github} on
 * {@code channels.github.defaultIssue}. The outcome is a second comment. A delivery's ref is
 * {@code owner/repo#123/comments/<comment id>}.
 */
public record GitHubChannel(GitHubApi api, GitHubSettings settings, Directory directory, Clock clock) implements Channel {
  static final String COMMENTS = "/comments/";
  private static final int PAGES = 30;

  public static GitHubChannel over(ApiClient client, GitHubSettings settings, Directory directory, Clock clock) {
    return new GitHubChannel(new GitHubApi(client, settings, clock), settings, directory, clock);
  }

  /** What takes GitHub's webhook deliveries (answer comments) for the questions this channel comments. */
  public Inbound webhook(Answering answering) {
    return new GitHubWebhook(new GitHubSignature(settings.webhookSecret()), api, answering, directory,
        new RecentIds(settings.rememberDeliveries()));
  }

  @Override
  public Destination resolve(String name) {
    String target = Channel.targetOf(name, "github", settings.defaultIssue());
    IssueRef issue = target == null ? null : IssueRef.parse(target);
    if (issue == null || !allowed(issue)) {
      return null;
    }
    return new Destination(this, name, "github:" + issue.toString().toLowerCase(Locale.ROOT), "GitHub " + issue,
        issue.toString());
  }

  /** The issue a delivery's ref points at, or null if the ref is not a GitHub comment. */
  static IssueRef issueOf(Delivery delivery) {
    int comments = delivery.ref().indexOf(COMMENTS);
    return comments < 0 ? null : IssueRef.parse(delivery.ref().substring(0, comments));
  }

  @Override
  public long intervalMillis() {
    return settings.intervalMillis();
  }

  @Override
  public Future<Delivery> post(Question question, Destination destination) {
    IssueRef issue = IssueRef.parse(destination.target());
    return api.comment(issue, GitHubComments.question(question, directory)).map(comment -> delivery(destination, comment));
  }

  @Override
  public Future<Delivery> findPost(Question question, Destination destination) {
    return find(IssueRef.parse(destination.target()), question, GitHubComments.marker(question.id(), null), 1)
        .map(comment -> comment == null ? null : delivery(destination, comment));
  }

  @Override
  public Future<Void> showOutcome(Question question, Destination destination, Delivery posted, boolean unsure) {
    return commentOnce(destination, question, question.outcome().status().wireName(), GitHubComments.outcome(question, directory), unsure);
  }

  @Override
  public Future<Void> showFollowUp(Question question, Destination destination, Delivery posted, EventType step, boolean unsure) {
    return commentOnce(destination, question, step.wireName(), GitHubComments.followUp(question, step, directory), unsure);
  }

  /** Comments on the issue, unless a comment with the same marker is already there (looked for only when unsure). */
  private Future<Void> commentOnce(Destination destination, Question question, String what, String body, boolean unsure) {
    IssueRef issue = IssueRef.parse(destination.target());
    Future<JsonObject> earlier = unsure ? find(issue, question, GitHubComments.marker(question.id(), what), 1) : Future.succeededFuture();
    return earlier.compose(found -> found != null ? Future.succeededFuture() : api.comment(issue, body).mapEmpty());
  }

  private Future<JsonObject> find(IssueRef issue, Question question, String marker, int page) {
    Instant since = question.createdAt().minusSeconds(LOOK_BACK_SECONDS);
    return api.comments(issue, since, page).compose(comments -> {
      for (int i = 0; i < comments.size(); i++) {
        JsonObject comment = comments.getJsonObject(i);
        if (comment.getString("body", "").contains(marker)) {
          return Future.succeededFuture(comment);
        }
      }
      return comments.size() < GitHubApi.perPage() || page == PAGES ? Future.succeededFuture()
          : find(issue, question, marker, page + 1);
    });
  }

  private boolean allowed(IssueRef issue) {
    return settings.repositories().isEmpty()
        || settings.repositories().stream().anyMatch(repository -> repository.equalsIgnoreCase(issue.repository()));
  }

  private Delivery delivery(Destination destination, JsonObject comment) {
    return new Delivery(destination.name(), destination.target() + COMMENTS + comment.getValue("id"), destination.label(),
        clock.instant().truncatedTo(ChronoUnit.MILLIS));
  }
}
