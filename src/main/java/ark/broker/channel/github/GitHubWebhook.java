package ark.broker.channel.github;

import ark.broker.bus.Messages.InboundRequest;
import ark.broker.bus.Messages.InboundResponse;
import ark.broker.channel.Answering;
import ark.broker.channel.ChannelUser;
import ark.broker.channel.Directory;
import ark.broker.channel.Inbound;
import ark.broker.channel.InboundProblem;
import ark.broker.question.Question;
import io.vertx.core.Future;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * GitHub's webhook ({@code POST /channels/github/events}, content type {@code application/json}, event
 * "Issue comments"): a new comment holding an {@link AnswerCommand} answers the question the broker
 * asked on that issue, and only such a question: one it did not comment on that issue is not found there
 * (404). Every request must carry a valid {@link GitHubSignature}; a delivery id already seen is refused
 * (409), so a captured request cannot be replayed. The ids are remembered in memory by
 * the replica that received them (the last {@code channels.github.rememberDeliveries}); a replay that
 * reaches another replica still changes nothing, because the same person's same answer to an answered
 * question is accepted as already recorded and any other answer is refused as not pending.
 */
record GitHubWebhook(GitHubSignature signature, GitHubApi api, Answering answering, Directory directory,
                     RecentIds deliveries) implements Inbound {
  private static final Logger LOG = LoggerFactory.getLogger(GitHubWebhook.class);

  @Override
  public Future<InboundResponse> handle(InboundRequest request, String requestId) {
    signature.verify(request);
    String event = request.header("X-GitHub-Event");
    String delivery = request.header("X-GitHub-Delivery");
    if (delivery == null || delivery.isBlank()) {
      throw new InboundProblem(400, "X-GitHub-Delivery is required");
    }
    if ("ping".equals(event)) {
      return Future.succeededFuture(Inbound.json(200, new JsonObject().put("status", "pong")));
    }
    if (!"issue_comment".equals(event)) {
      return Future.succeededFuture(ignored("the broker only reads issue_comment events"));
    }
    if (!deliveries.add(delivery)) {
      throw new InboundProblem(409, "delivery " + delivery + " was already received");
    }
    JsonObject payload;
    try {
      payload = request.body().toJsonObject();
    } catch (DecodeException | ClassCastException e) {
      throw new InboundProblem(400, "the body is not a JSON object");
    }
    Future<InboundResponse> answered;
    try {
      answered = commented(payload, requestId);
    } catch (ClassCastException e) {
      throw new InboundProblem(400, "the payload has a field of the wrong type");
    }
    return answered.onFailure(failure -> {
      if (!(failure instanceof InboundProblem problem) || problem.status >= 500) {
        deliveries.forget(delivery); // not processed: GitHub's redelivery should get another chance
      }
    });
  }

  private Future<InboundResponse> commented(JsonObject payload, String requestId) {
    JsonObject comment = payload.getJsonObject("comment", new JsonObject());
    JsonObject user = comment.getJsonObject("user", new JsonObject());
    String body = comment.getString("body", "");
    if (!"created".equals(payload.getString("action")) || "Bot".equals(user.getString("type"))
        || GitHubComments.isOurs(body)) {
      return Future.succeededFuture(ignored("not a new comment by a person"));
    }
    AnswerCommand command = AnswerCommand.parse(body);
    if (command == null) {
      return Future.succeededFuture(ignored("the comment has no /answer, /approve or /reject line"));
    }
    IssueRef issue = IssueRef.parse(payload.getJsonObject("repository", new JsonObject()).getString("full_name", "")
        + "#" + payload.getJsonObject("issue", new JsonObject()).getValue("number"));
    String login = user.getString("login", "");
    if (issue == null || login.isEmpty()) {
      throw new InboundProblem(400, "the payload has no repository, issue number or comment author");
    }
    ChannelUser commenter = directory.gitHubUser(login);
    return askedOn(issue, command, requestId)
        .compose(question -> command.isPlainAnswerTo(question)
            ? answering.answer(question, command.response(), commenter, requestId)
            : answering.answer(question, command.replyTo(question), commenter, requestId))
        .map(Answering::answered)
        .onFailure(failure -> {
          if (failure instanceof InboundProblem problem && problem.status < 500) {
            api.comment(issue, GitHubComments.refusal(login, problem.getMessage())).onFailure(notPosted ->
                LOG.warn("Could not tell @{} on {} why their answer was refused: {}", login, issue, notPosted.getMessage()));
          }
        });
  }

  /** The question the command answers: the one it names, or else the only one open on this issue. */
  private Future<Question> askedOn(IssueRef issue, AnswerCommand command, String requestId) {
    if (command.questionId() != null) {
      return answering.question(command.questionId(), requestId).compose(question -> postedOn(question, issue)
          ? Future.succeededFuture(question)
          : Future.failedFuture(new InboundProblem(404, "question " + command.questionId() + " was not asked on " + issue)));
    }
    return answering.pending(requestId).compose(pending -> {
      List<Question> here = pending.stream().filter(question -> postedOn(question, issue)).toList();
      if (here.isEmpty()) {
        return Future.failedFuture(new InboundProblem(404, "no open question was asked on " + issue));
      }
      if (here.size() > 1) {
        return Future.failedFuture(new InboundProblem(400, here.size() + " questions are open on " + issue
            + "; say which one: /answer <question id> <answer>"));
      }
      return Future.succeededFuture(here.get(0));
    });
  }

  private static boolean postedOn(Question question, IssueRef issue) {
    return question.deliveries().stream().map(GitHubChannel::issueOf).anyMatch(posted -> posted != null && posted.sameAs(issue));
  }

  private static InboundResponse ignored(String why) {
    return Inbound.json(200, new JsonObject().put("status", "ignored").put("reason", why));
  }
}
