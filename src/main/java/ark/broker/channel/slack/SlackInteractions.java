package ark.broker.channel.slack;

import ark.broker.bus.Messages.InboundRequest;
import ark.broker.bus.Messages.InboundResponse;
import ark.broker.channel.Answering;
import ark.broker.channel.ChannelUser;
import ark.broker.channel.Directory;
import ark.broker.channel.Inbound;
import ark.broker.channel.InboundProblem;
import ark.broker.question.Decision;
import ark.broker.question.InvalidQuestionException;
import ark.broker.question.Question;
import io.vertx.core.Future;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Slack's interactivity requests ({@code POST /channels/slack/events}, the app's Request URL): a click
 * on an option button answers the question; the "Answer…" button of a question without options opens
 * a form, whose submission answers it. Every request must carry a valid {@link SlackSignature}.
 * A click or form counts only for the question the broker posted as that message. Refusals (not the message
 * of that question, not the recipient, no longer pending) answer with their status and tell the person why in a
 * message only they see; a form shows them under its input instead, as Slack wants.
 */
record SlackInteractions(SlackSignature signature, SlackApi api, Answering answering, Directory directory) implements Inbound {
  private static final Logger LOG = LoggerFactory.getLogger(SlackInteractions.class);

  @Override
  public Future<InboundResponse> handle(InboundRequest request, String requestId) {
    signature.verify(request);
    JsonObject payload = payload(request);
    try {
      return switch (payload.getString("type", "")) {
        case "block_actions" -> clicked(payload, requestId);
        case "view_submission" -> submitted(payload, requestId);
        default -> Future.succeededFuture(ignored());
      };
    } catch (ClassCastException e) {
      throw new InboundProblem(400, "the payload has a field of the wrong type");
    }
  }

  /** A click counts only on the message the broker posted for the question, whoever may see the question. */
  private Future<InboundResponse> clicked(JsonObject payload, String requestId) {
    JsonArray actions = payload.getJsonArray("actions", new JsonArray());
    JsonObject action = actions.isEmpty() ? new JsonObject() : actions.getJsonObject(0);
    String questionId = SlackBlocks.questionOfBlock(action.getString("block_id"));
    String actionId = action.getString("action_id", "");
    Decision.Action decide = actionId.startsWith(SlackBlocks.DECIDE_ACTION) ? decision(action.getString("value", "")) : null;
    boolean opensForm = actionId.equals(SlackBlocks.OPEN_FORM_ACTION) || decide != null;
    if (questionId == null || !opensForm && !actionId.startsWith(SlackBlocks.OPTION_ACTION)) {
      return Future.succeededFuture(ignored());
    }
    String userId = payload.getJsonObject("user", new JsonObject()).getString("id", "");
    ChannelUser user = directory.slackUser(userId);
    SlackMessage message = SlackMessage.clickedIn(payload);
    String value = action.getString("value", "");
    String trigger = payload.getString("trigger_id", "");
    return answering.question(questionId, requestId)
        .compose(question -> {
          SlackMessage.requirePostedAs(question, message);
          return opensForm ? openForm(question, user, message, trigger, decide)
              : answering.answer(question, value, user, requestId).map(Answering::answered);
        })
        .onFailure(failure -> {
          if (failure instanceof InboundProblem problem) {
            tellPrivately(payload, userId, problem.getMessage());
          }
        });
  }

  private static Decision.Action decision(String value) {
    try {
      return Decision.Action.parse(value);
    } catch (InvalidQuestionException e) {
      throw new InboundProblem(400, "the button names no decision the broker knows: " + value);
    }
  }

  private Future<InboundResponse> openForm(Question question, ChannelUser user, SlackMessage message, String trigger,
                                           Decision.Action decide) {
    InboundProblem refusal = answering.refusal(question, user);
    if (refusal == null && !question.isPending()) {
      refusal = new InboundProblem(409, "question " + question.id() + " is already " + question.outcome().status().wireName());
    }
    if (refusal != null) {
      return Future.failedFuture(refusal);
    }
    JsonObject open = new JsonObject()
        .put("trigger_id", trigger)
        .put("view", SlackBlocks.answerForm(question, message, decide));
    return api.post("views.open", open)
        .map(opened -> Inbound.json(200, new JsonObject().put("status", "form opened").put("question", question.id())))
        .recover(failure -> Future.failedFuture(new InboundProblem(502, "Slack did not open the answer form: " + failure.getMessage())));
  }

  /** A form answers only the question, and only from the message, it was opened for (see {@link SlackBlocks#answerForm}). */
  private Future<InboundResponse> submitted(JsonObject payload, String requestId) {
    JsonObject view = payload.getJsonObject("view", new JsonObject());
    if (!SlackBlocks.FORM_CALLBACK.equals(view.getString("callback_id"))) {
      return Future.succeededFuture(ignored());
    }
    JsonObject values = view.getJsonObject("state", new JsonObject()).getJsonObject("values", new JsonObject());
    ChannelUser user = directory.slackUser(payload.getJsonObject("user", new JsonObject()).getString("id", ""));
    String metadata = view.getString("private_metadata", "");
    return Future.succeededFuture(metadata).map(SlackBlocks::originOfForm)
        .compose(origin -> answering.question(origin.questionId(), requestId).compose(question -> {
          SlackMessage.requirePostedAs(question, origin.message());
          if (origin.action() != null) {
            return answering.answer(question, SlackForms.decision(question, origin.action(), values), user, requestId);
          }
          if (question.form().responseSchema() != null) {
            return answering.answer(question, SlackForms.answer(question, values), user, requestId);
          }
          String answer = values.getJsonObject(SlackBlocks.FORM_BLOCK, new JsonObject())
              .getJsonObject(SlackBlocks.FORM_INPUT, new JsonObject()).getString("value", "");
          return answering.answer(question, answer, user, requestId);
        }))
        .map(answered -> Inbound.empty())
        .recover(failure -> failure instanceof InboundProblem problem
            // Slack shows these under the input they are about and keeps the form open.
            ? Future.succeededFuture(Inbound.json(200, new JsonObject().put("response_action", "errors")
                .put("errors", new JsonObject().put(SlackForms.blockFor(problem.getMessage(), values), problem.getMessage()))))
            : Future.failedFuture(failure));
  }

  private void tellPrivately(JsonObject payload, String userId, String text) {
    String conversation = payload.getJsonObject("container", new JsonObject()).getString("channel_id",
        payload.getJsonObject("channel", new JsonObject()).getString("id"));
    if (conversation == null || userId.isEmpty()) {
      return;
    }
    api.post("chat.postEphemeral", new JsonObject().put("channel", conversation).put("user", userId).put("text", text))
        .onFailure(failure -> LOG.warn("Could not tell Slack user {} why their answer was refused: {}", userId, failure.getMessage()));
  }

  private static JsonObject payload(InboundRequest request) {
    for (String field : request.body().toString(StandardCharsets.UTF_8).split("&")) {
      if (field.startsWith("payload=")) {
        try {
          return new JsonObject(URLDecoder.decode(field.substring("payload=".length()), StandardCharsets.UTF_8));
        } catch (DecodeException | IllegalArgumentException e) {
          throw new InboundProblem(400, "the payload field is not a JSON object");
        }
      }
    }
    throw new InboundProblem(400, "the request has no payload field (Slack sends payload=<JSON>, form-encoded)");
  }

  private static InboundResponse ignored() {
    return Inbound.json(200, new JsonObject().put("status", "ignored"));
  }
}
