package ark.broker.channel.slack;

import ark.broker.channel.Directory;
import ark.broker.channel.FollowUpNotice;
import ark.broker.channel.InboundProblem;
import ark.broker.question.Decision;
import ark.broker.question.EventType;
import ark.broker.question.InvalidQuestionException;
import ark.broker.question.Question;
import ark.broker.question.QuestionKind;
import ark.broker.question.QuestionStatus;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * The Block Kit of a question: its content, context, priority and asker, and one button per option (or
 * one that opens a form for a free-text answer). The buttons' block ids carry the question id; the
 * message metadata carries it too, so the worker can find its own post again after a crash.
 */
final class SlackBlocks {
  static final String METADATA_TYPE = "ark_question";
  static final String OPTION_ACTION = "ark_option_";
  static final String OPEN_FORM_ACTION = "ark_open_answer";
  /** An approval's buttons, {@code ark_decide_approved} and {@code ark_decide_rejected}: each opens the modal for its reason. */
  static final String DECIDE_ACTION = "ark_decide_";
  static final String FORM_CALLBACK = "ark_answer";
  static final String FORM_BLOCK = "ark_response";
  static final String FORM_INPUT = "ark_text";
  private static final String ANSWER_BLOCK = "ark_answer|";
  /** Slack's limits: text objects 3000 characters, buttons 75, blocks of actions 25 elements. */
  private static final int TEXT = 3000;
  private static final int BUTTON = 75;
  private static final int BUTTONS_PER_BLOCK = 25;
  private static final int FORM_ANSWER = 3000;

  private SlackBlocks() {
  }

  /** The {@code chat.postMessage} body, without the channel. */
  static JsonObject question(Question question, Directory directory) {
    JsonArray blocks = describe(question, directory);
    List<String> options = question.asked().options();
    if (question.form().kind() == QuestionKind.APPROVAL) {
      blocks.add(actions(question, 0, new JsonArray()
          .add(button("Approve", DECIDE_ACTION + Decision.Action.APPROVED.wireName(), Decision.Action.APPROVED.wireName()).put("style", "primary"))
          .add(button("Reject", DECIDE_ACTION + Decision.Action.REJECTED.wireName(), Decision.Action.REJECTED.wireName()).put("style", "danger"))));
    } else if (options == null) {
      blocks.add(actions(question, 0, new JsonArray().add(button("Answer…", OPEN_FORM_ACTION, question.id()).put("style", "primary"))));
    } else {
      for (int first = 0; first < options.size(); first += BUTTONS_PER_BLOCK) {
        JsonArray buttons = new JsonArray();
        for (int i = first; i < Math.min(options.size(), first + BUTTONS_PER_BLOCK); i++) {
          buttons.add(button(options.get(i), OPTION_ACTION + i, options.get(i)));
        }
        blocks.add(actions(question, first / BUTTONS_PER_BLOCK, buttons));
      }
    }
    return new JsonObject()
        .put("text", fallback(question))
        .put("blocks", blocks)
        .put("metadata", new JsonObject()
            .put("event_type", METADATA_TYPE)
            .put("event_payload", new JsonObject().put("question_id", question.id())));
  }

  /** The {@code chat.update} body, without channel and ts: the question as it ended, buttons gone. */
  static JsonObject outcome(Question question, Directory directory) {
    JsonArray blocks = describe(question, directory).add(section(outcomeText(question, directory)));
    return new JsonObject().put("text", fallback(question)).put("blocks", blocks);
  }

  /** The question id a button's block belongs to, or null if the block is not one of ours. */
  static String questionOfBlock(String blockId) {
    if (blockId == null || !blockId.startsWith(ANSWER_BLOCK)) {
      return null;
    }
    int end = blockId.indexOf('|', ANSWER_BLOCK.length());
    return end < 0 ? null : blockId.substring(ANSWER_BLOCK.length(), end);
  }

  /**
   * The {@code views.open} view: a form for a free-text answer, the fields of a form question
   * ({@link SlackForms#formBlocks}), or an approval's reason ({@code decide} says approve or reject). Its metadata
   * remembers the question, the message whose button opened it and the decision, so the submission is held to
   * that message as a click is.
   *
   * @param decide the button's decision, for an approval; else null
   */
  static JsonObject answerForm(Question question, SlackMessage openedFrom, Decision.Action decide) {
    JsonObject metadata = new JsonObject().put("question", question.id()).put("message", openedFrom.ref());
    if (decide != null) {
      metadata.put("action", decide.wireName());
    }
    JsonObject view = new JsonObject()
        .put("type", "modal")
        .put("callback_id", FORM_CALLBACK)
        .put("private_metadata", metadata.encode())
        .put("title", plain(decide == Decision.Action.APPROVED ? "Approve" : decide == Decision.Action.REJECTED ? "Reject"
            : "Answer the question"))
        .put("submit", plain("Send"))
        .put("close", plain("Cancel"));
    if (decide != null) {
      return view.put("blocks", SlackForms.decisionBlocks(question, decide));
    }
    if (question.form().responseSchema() != null) {
      return view.put("blocks", SlackForms.formBlocks(question));
    }
    return view
        .put("blocks", new JsonArray()
            .add(section(text(question.asked().content(), TEXT)))
            .add(new JsonObject()
                .put("type", "input")
                .put("block_id", FORM_BLOCK)
                .put("label", plain("Your answer"))
                .put("element", new JsonObject()
                    .put("type", "plain_text_input")
                    .put("action_id", FORM_INPUT)
                    .put("multiline", true)
                    .put("max_length", FORM_ANSWER))));
  }

  /**
   * The question a submitted form answers and the message it was opened from, as {@link #answerForm} wrote them.
   *
   * @throws InboundProblem 400 for metadata this broker did not write (a form opened before it remembered the message)
   */
  static FormOrigin originOfForm(String privateMetadata) {
    JsonObject origin;
    try {
      origin = new JsonObject(privateMetadata);
    } catch (DecodeException | ClassCastException e) {
      origin = new JsonObject();
    }
    SlackMessage message = SlackMessage.of(origin.getValue("message") instanceof String ref ? ref : null);
    if (!(origin.getValue("question") instanceof String question) || message == null) {
      throw new InboundProblem(400, "this form does not say which question and message it belongs to; "
          + "open it again from the question's message");
    }
    Decision.Action action = null;
    if (origin.getValue("action") instanceof String decided) {
      try {
        action = Decision.Action.parse(decided);
      } catch (InvalidQuestionException e) {
        throw new InboundProblem(400, "this form names no decision the broker knows; open it again from the question's message");
      }
    }
    return new FormOrigin(question, message, action);
  }

  /**
   * Where a form came from: the question it answers and the message whose button opened it.
   *
   * @param action the decision of the button that opened it, for an approval; else null
   */
  record FormOrigin(String questionId, SlackMessage message, Decision.Action action) {
  }

  /** Slack's mrkdwn treats {@code & < >} as markup ({@code <!channel>} pings everyone); the question's text must not. */
  static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static JsonArray describe(Question question, Directory directory) {
    JsonArray blocks = new JsonArray().add(section(text(question.asked().content(), TEXT)));
    if (question.asked().context() != null) {
      blocks.add(context(text(question.asked().context(), TEXT)));
    }
    StringBuilder about = new StringBuilder()
        .append("*Priority:* ").append(question.asked().priority().wireName())
        .append("  ·  *Asked by:* ").append(question.asked().sender() == null ? "an agent" : escape(question.asked().sender()))
        .append("  ·  *For:* ").append(person(question.asked().recipient(), directory));
    if (question.followUps().expiresAt() != null) {
      about.append("  ·  *Expires:* ").append(question.followUps().expiresAt());
    }
    return blocks.add(context(about.toString()));
  }

  private static String outcomeText(Question question, Directory directory) {
    QuestionStatus status = question.outcome().status();
    return switch (status) {
      case ANSWERED -> answeredText(question) + (question.outcome().answeredOnTimeout() ? " (by default: nobody answered in time)"
          : question.outcome().answeredBy() == null ? "" : " (by " + person(question.outcome().answeredBy(), directory) + ")");
      case CANCELLED -> ":no_entry_sign: *Cancelled:* the asker no longer needs an answer.";
      case EXPIRED -> ":hourglass: *Expired:* no answer came in time.";
      case PENDING -> throw new IllegalArgumentException("question " + question.id() + " has no outcome yet");
    };
  }

  private static String answeredText(Question question) {
    Decision decision = question.outcome().decision();
    if (decision != null) {
      boolean approved = decision.action() == Decision.Action.APPROVED;
      return (approved ? ":white_check_mark: *Approved*" : ":x: *Rejected*")
          + (decision.reason() == null ? "" : ": " + text(decision.reason(), TEXT - 200));
    }
    if (question.outcome().answer() != null) {
      return ":white_check_mark: *Answered:*" + text(SlackForms.answerText(question), TEXT - 200);
    }
    return ":white_check_mark: *Answered:* " + text(question.outcome().response(), TEXT - 200);
  }

  /** A reminder or an escalation, as a thread reply that mentions the people it concerns. */
  static String followUp(Question question, EventType step, Directory directory) {
    return FollowUpNotice.text(question, step, directory, identity -> person(identity, directory));
  }

  private static String person(String identity, Directory directory) {
    String slackUser = directory.slackUserOf(identity);
    return slackUser != null ? "<@" + slackUser + ">" : escape(identity);
  }

  private static String fallback(Question question) {
    return "Question for " + question.asked().recipient() + ": " + text(question.asked().content(), TEXT);
  }

  private static JsonObject actions(Question question, int index, JsonArray elements) {
    return new JsonObject().put("type", "actions").put("block_id", ANSWER_BLOCK + question.id() + "|" + index)
        .put("elements", elements);
  }

  private static JsonObject button(String text, String actionId, String value) {
    return new JsonObject().put("type", "button").put("text", plain(truncate(text, BUTTON)))
        .put("action_id", actionId).put("value", value);
  }

  static JsonObject section(String mrkdwn) {
    return new JsonObject().put("type", "section").put("text", new JsonObject().put("type", "mrkdwn").put("text", mrkdwn));
  }

  private static JsonObject context(String mrkdwn) {
    return new JsonObject().put("type", "context")
        .put("elements", new JsonArray().add(new JsonObject().put("type", "mrkdwn").put("text", mrkdwn)));
  }

  static JsonObject plain(String text) {
    return new JsonObject().put("type", "plain_text").put("text", text);
  }

  /** The text escaped and cut to {@code max} characters, never in the middle of an escape. */
  static String text(String raw, int max) {
    String escaped = escape(raw);
    if (escaped.length() <= max) {
      return escaped;
    }
    String cut = escaped.substring(0, max - 1);
    int ampersand = cut.lastIndexOf('&');
    if (ampersand >= 0 && cut.indexOf(';', ampersand) < 0) {
      cut = cut.substring(0, ampersand);
    }
    return cut + "…";
  }

  private static String truncate(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 1) + "…";
  }
}
