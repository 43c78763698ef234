package ark.broker.channel.github;

import ark.broker.channel.Directory;
import ark.broker.channel.FollowUpNotice;
import ark.broker.question.Decision;
import ark.broker.question.EventType;
import ark.broker.question.Question;
import ark.broker.question.QuestionKind;
import ark.broker.question.ResponseSchema;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.stream.Collectors;

/**
 * The Markdown of the broker's comments. Each ends in a hidden marker naming the question (and, for an
 * outcome, the status), which is how the worker finds its own comment again after a crash.
 */
final class GitHubComments {
  private static final String MARKER = "<!-- ark-question:";

  private GitHubComments() {
  }

  static String question(Question question, Directory directory) {
    StringBuilder text = new StringBuilder()
        .append("**Question** for ").append(person(question.asked().recipient(), directory))
        .append(question.asked().sender() == null ? "" : " from `" + question.asked().sender() + "`")
        .append(" · priority **").append(question.asked().priority().wireName()).append("**\n\n")
        .append(quote(question.asked().content())).append("\n\n");
    if (question.asked().context() != null) {
      text.append("Context:\n\n").append(quote(question.asked().context())).append("\n\n");
    }
    if (question.asked().options() != null) {
      text.append("Options: ").append(question.asked().options().stream().map(GitHubComments::code)
          .collect(Collectors.joining(" · "))).append("\n\n");
    }
    if (question.form().kind() == QuestionKind.APPROVAL) {
      return approval(question, text);
    }
    if (question.form().responseSchema() != null) {
      return form(question, text);
    }
    String example = question.asked().options() == null ? "your answer" : question.asked().options().get(0);
    return text.append("To answer, reply with a comment starting with `/answer ").append(example)
        .append("`, or `/answer ").append(question.id()).append(' ').append(example)
        .append("` when several questions are open here.\n\n")
        .append(marker(question.id(), null))
        .toString();
  }

  private static String approval(Question question, StringBuilder text) {
    if (question.form().arguments() != null) {
      text.append("Arguments:\n\n").append(quote(question.form().arguments().toPrettyString())).append("\n\n");
    }
    return text.append("To decide, reply with a comment starting with `/approve` or `/reject`, followed by your reason")
        .append(question.form().reasonRequired() ? " (a reason is required)" : " (optional)").append(", or `/approve ")
        .append(question.id()).append(" <reason>` when several questions are open here.\n\n")
        .append(marker(question.id(), null))
        .toString();
  }

  private static String form(Question question, StringBuilder text) {
    ResponseSchema schema = question.form().responseSchema();
    text.append("Fields:\n\n");
    StringBuilder example = new StringBuilder();
    for (ResponseSchema.Field field : schema.fields().values()) {
      boolean required = schema.required().contains(field.name());
      text.append("- ").append(code(field.name())).append(field.title() == null ? "" : " (" + neutralize(field.title()) + ")")
          .append(": ").append(describe(field)).append(required ? ", required" : "")
          .append(field.description() == null ? "" : ". " + neutralize(field.description())).append('\n');
      if (required) {
        example.append(field.name()).append('=').append(field.isChoice() ? field.choices().keySet().iterator().next() : "…").append('\n');
      }
    }
    return text.append("\nTo answer, reply with a comment of `/answer` and then one `key=value` line a field (or a ")
        .append("```json block of them), such as\n\n```\n/answer\n").append(example).append("```\n\n")
        .append("Start with `/answer ").append(question.id()).append("` when several questions are open here.\n\n")
        .append(marker(question.id(), null))
        .toString();
  }

  private static String describe(ResponseSchema.Field field) {
    String choices = field.choices().entrySet().stream()
        .map(choice -> code(choice.getKey()) + (choice.getKey().equals(choice.getValue()) ? "" : " (" + neutralize(choice.getValue()) + ")"))
        .collect(Collectors.joining(" · "));
    JsonNode definition = field.definition();
    return switch (field.type()) {
      case "array" -> "any of " + choices + ", separated by commas";
      case "boolean" -> "true or false";
      case "number", "integer" -> ("integer".equals(field.type()) ? "a whole number" : "a number")
          + (definition.has("minimum") ? " from " + definition.get("minimum") : "")
          + (definition.has("maximum") ? " up to " + definition.get("maximum") : "");
      default -> field.isChoice() ? "one of " + choices
          : "text" + (definition.has("format") ? " (" + definition.get("format").asText() + ")" : "");
    };
  }

  static String outcome(Question question, Directory directory) {
    String by = question.outcome().answeredOnTimeout() ? " by default, as nobody answered in time"
        : question.outcome().answeredBy() == null ? "" : " by " + person(question.outcome().answeredBy(), directory);
    Decision decision = question.outcome().decision();
    String what = switch (question.outcome().status()) {
      case ANSWERED -> decision != null
          ? "was **" + decision.action().wireName() + "**" + by + (decision.reason() == null ? "." : ":\n\n" + quote(decision.reason()))
          : "was answered" + by + ":\n\n" + quote(question.outcome().response());
      case CANCELLED -> "was cancelled: the asker no longer needs an answer.";
      case EXPIRED -> "expired: no answer came in time.";
      case PENDING -> throw new IllegalArgumentException("question " + question.id() + " has no outcome yet");
    };
    return "Question `" + question.id() + "` " + what + "\n\n" + marker(question.id(), question.outcome().status().wireName());
  }

  /** A refusal, answering someone's {@code /answer} comment; marked as the broker's own like every comment it makes. */
  static String refusal(String login, String reason) {
    return "@" + login + " your answer was not recorded: " + neutralize(reason) + "\n\n" + MARKER + "refusal -->";
  }

  /** The hidden marker of the question's comment ({@code status} null) or of its outcome comment. */
  /** A reminder or an escalation, marked like an outcome so a worker that is unsure finds it. */
  static String followUp(Question question, EventType step, Directory directory) {
    return FollowUpNotice.text(question, step, directory, identity -> person(identity, directory)) + "\n\n"
        + marker(question.id(), step.wireName());
  }

  static String marker(String questionId, String status) {
    return MARKER + questionId + (status == null ? "" : " outcome:" + status) + " -->";
  }

  /** Whether a comment is one of the broker's own. */
  static boolean isOurs(String body) {
    return body.contains(MARKER);
  }

  private static String person(String identity, Directory directory) {
    String login = directory.gitHubLoginOf(identity);
    return login != null ? "@" + login + " (`" + identity + "`)" : "`" + identity + "`";
  }

  /** Quoted, so the text cannot start an {@code /answer} line; HTML comments disarmed, so it cannot fake a marker. */
  private static String quote(String text) {
    return neutralize(text).lines().map(line -> "> " + line).collect(Collectors.joining("\n"));
  }

  private static String neutralize(String text) {
    return text.replace("<!--", "&lt;!--");
  }

  private static String code(String text) {
    String fence = text.contains("`") ? "`` " : "`";
    return fence + text + (fence.length() > 1 ? " ``" : "`");
  }
}
