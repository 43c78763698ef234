package ark.broker.mcp;

import ark.broker.mcp.protocol.RequestContext;
import ark.broker.question.InvalidQuestionException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.regex.Pattern;

/**
 * How long a plain (not task-augmented) {@code ask_question} call waits for the answer before it returns the
 * question as pending, with its id. Many clients give up on a call after a fixed time that progress does not
 * extend (the Java SDK after 20 s, Ark's executor after its MCPServer's timeout, the TypeScript SDK and the MCP
 * Inspector after 60 s); a call given up on loses the answer and, without progress, even the question's id.
 * So a plain call returns by the broker's default ({@code mcp.plainCallWaitSeconds}) unless its host says how
 * long it can wait (header {@code X-Ark-Wait-Seconds}) or the call itself does (argument {@code waitSeconds}).
 *
 * @param defaultSeconds how long a call waits when neither says; 0: until the question is answered
 */
record PlainCallWait(long defaultSeconds) {
  static final String HEADER = "X-Ark-Wait-Seconds";
  private static final Pattern SECONDS = Pattern.compile("\\d{1,9}");

  /**
   * How long this call waits, in milliseconds; -1 for as long as it takes.
   *
   * @throws InvalidQuestionException for a {@code waitSeconds} argument out of range
   */
  long millis(RequestContext ctx, ObjectNode arguments) {
    JsonNode wait = arguments.get("waitSeconds");
    if (wait == null || wait.isNull()) {
      return millis(hostSeconds(ctx));
    }
    if (!wait.isIntegralNumber() || wait.asLong() < 1 || wait.asLong() > FollowUpTools.MAX_WAIT_SECONDS) {
      throw new InvalidQuestionException("waitSeconds must be a whole number from 1 to " + FollowUpTools.MAX_WAIT_SECONDS);
    }
    return millis(wait.asLong());
  }

  /**
   * The {@code waitSeconds} to suggest for {@code get_question} after a call returned pending: what the host can
   * wait for one call, within what get_question takes.
   */
  long followUpSeconds(RequestContext ctx) {
    long host = hostSeconds(ctx);
    return host == 0 ? FollowUpTools.MAX_WAIT_SECONDS : Math.min(host, FollowUpTools.MAX_WAIT_SECONDS);
  }

  /** The host's wait from the header, else the default; 0 for until answered. */
  private long hostSeconds(RequestContext ctx) {
    String header = ctx.header(HEADER);
    if (header == null) {
      return defaultSeconds;
    }
    if (!SECONDS.matcher(header.strip()).matches()) {
      throw new InvalidQuestionException(HEADER + " must be a whole number of seconds (0: until answered), not '"
          + header + "'");
    }
    return Long.parseLong(header.strip());
  }

  private static long millis(long seconds) {
    return seconds == 0 ? -1 : seconds * 1000;
  }
}
