package ark.broker.channel.github;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An answer typed in a comment: the first line that starts with {@code /answer}, then optionally the
 * question's id, then the answer ({@code /answer yes}, {@code /answer q-1b4e... yes}). When nothing
 * follows on that line, the lines after it are the answer, for answers longer than a line. Quoted lines
 * ({@code > /answer ...}) do not count.
 */
record AnswerCommand(String questionId, String response) {
  private static final Pattern COMMAND = Pattern.compile("^[ \\t]*/answer(?:[ \\t]+(q-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}))?(?=\\s|$)[ \\t]*(.*)$",
      Pattern.MULTILINE);

  /** The command in the comment, or null if it has none. */
  static AnswerCommand parse(String comment) {
    Matcher matcher = COMMAND.matcher(comment);
    if (!matcher.find()) {
      return null;
    }
    String response = matcher.group(2).strip();
    if (response.isEmpty()) {
      response = comment.substring(matcher.end()).strip();
    }
    return new AnswerCommand(matcher.group(1), response);
  }
}
