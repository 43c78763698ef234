package ark.broker.channel.github;

import ark.broker.channel.InboundProblem;
import ark.broker.question.Decision;
import ark.broker.question.Question;
import ark.broker.question.QuestionKind;
import ark.broker.question.Reply;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonProcessingException;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An answer typed in a comment: the first line that starts with {@code /answer}, {@code /approve} or
 * {@code /reject}, then optionally the question's id, then the answer ({@code /answer yes},
 * {@code /answer q-1b4e... yes}, {@code /reject not on a Friday}). When nothing follows on that line, the lines
 * after it are the answer, for answers longer than a line. Quoted lines ({@code > /answer ...}) do not count.
 *
 * @param verb answer, approve or reject
 */
record AnswerCommand(String verb, String questionId, String response) {
  private static final Pattern COMMAND = Pattern.compile("^[ \\t]*/(answer|approve|reject)(?:[ \\t]+(q-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}))?(?=\\s|$)[ \\t]*(.*)$",
      Pattern.MULTILINE);
  private static final Pattern JSON_BLOCK = Pattern.compile("\\A```(?:json)?[ \\t]*\\n(.*?)\\n[ \\t]*```\\s*\\z", Pattern.DOTALL);
  private static final Pattern KEY_VALUE = Pattern.compile("([^=]+)=(.*)");

  /** The command in the comment, or null if it has none. */
  static AnswerCommand parse(String comment) {
    Matcher matcher = COMMAND.matcher(comment);
    if (!matcher.find()) {
      return null;
    }
    String response = matcher.group(3).strip();
    if (response.isEmpty()) {
      response = comment.substring(matcher.end()).strip();
    }
    return new AnswerCommand(matcher.group(1), matcher.group(2), response);
  }

  /** Whether this is text for a question that takes text: where the channel matches options in any letter case. */
  boolean isPlainAnswerTo(Question question) {
    return verb.equals("answer") && question.form().kind() == QuestionKind.QUESTION && question.form().responseSchema() == null;
  }

  /**
   * What the command says to the question: a decision for an approval ({@code /approve reason}, {@code /reject
   * reason}, or {@code /answer approve}); for a form question the fields, as a {@code ```json} block or as
   * {@code key=value} lines; else the text.
   *
   * @throws InboundProblem 400 for a command the question does not take, or fields that are neither JSON nor key=value
   */
  Reply replyTo(Question question) {
    boolean decides = !verb.equals("answer");
    if (decides && question.form().kind() != QuestionKind.APPROVAL) {
      throw new InboundProblem(400, "question " + question.id() + " is no approval: answer it with /answer");
    }
    if (decides) {
      Decision.Action action = verb.equals("approve") ? Decision.Action.APPROVED : Decision.Action.REJECTED;
      return new Reply.Verdict(action, response.isEmpty() ? null : response, null);
    }
    if (question.form().responseSchema() == null) {
      return new Reply.Text(response);
    }
    Matcher json = JSON_BLOCK.matcher(response);
    if (json.matches()) {
      try {
        return new Reply.Form(QuestionJson.MAPPER.readTree(json.group(1)));
      } catch (JsonProcessingException e) {
        throw new InboundProblem(400, "the ```json block is not JSON: " + e.getOriginalMessage());
      }
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : response.lines().toList()) {
      if (line.isBlank()) {
        continue;
      }
      Matcher pair = KEY_VALUE.matcher(line);
      if (!pair.matches()) {
        throw new InboundProblem(400, "question " + question.id() + " takes its fields as key=value lines or a ```json "
            + "block; '" + line.strip() + "' is neither. Fields: " + question.form().responseSchema().fields().keySet());
      }
      values.put(pair.group(1), pair.group(2));
    }
    return new Reply.Form(question.form().responseSchema().fromText(values));
  }
}
