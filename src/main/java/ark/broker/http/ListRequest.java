package ark.broker.http;

import ark.broker.question.ArkUri;
import ark.broker.question.InvalidQuestionException;
import ark.broker.question.Priority;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionOrder;
import ark.broker.question.QuestionStatus;
import io.vertx.core.MultiMap;

import java.util.Set;

/**
 * The query string of {@code GET /questions}, checked strictly: a misspelt filter would otherwise
 * silently return everything.
 *
 * @param resourceVersion where a watch resumes (exclusive), or null to watch from now
 */
record ListRequest(QuestionFilter filter, QuestionOrder order, boolean watch, Long resourceVersion, int limit,
                   String continueToken) {
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 1000;
  private static final Set<String> KNOWN =
      Set.of("status", "sender", "recipient", "priority", "q", "order", "watch", "resourceVersion", "limit", "continue");

  static ListRequest parse(MultiMap params, String lastEventId) {
    for (String name : params.names()) {
      if (!KNOWN.contains(name)) {
        throw new InvalidQuestionException("unknown query parameter '" + name + "'; allowed: " + KNOWN.stream().sorted().toList());
      }
      if (params.getAll(name).size() > 1) {
        throw new InvalidQuestionException("query parameter '" + name + "' is given more than once");
      }
    }
    String status = params.get("status");
    String sender = params.get("sender");
    String recipient = params.get("recipient");
    String priority = params.get("priority");
    String order = params.get("order");
    QuestionFilter filter = new QuestionFilter(
        status == null ? null : QuestionStatus.parse(status),
        sender == null ? null : ArkUri.require("sender", sender),
        recipient == null ? null : ArkUri.require("recipient", recipient),
        priority == null ? null : Priority.parse(priority),
        params.get("q"));
    boolean watch = parseWatch(params.get("watch"));
    if (watch && order != null) {
      throw new InvalidQuestionException("order sorts a list; a watch streams changes as they happen");
    }
    if (!watch && params.contains("resourceVersion")) {
      throw new InvalidQuestionException("resourceVersion is only meaningful with watch=true");
    }
    if (watch && (params.contains("limit") || params.contains("continue"))) {
      throw new InvalidQuestionException("limit and continue page a list; a watch streams every change");
    }
    // A browser that reconnects by itself repeats the original URL; Last-Event-ID is the newer position.
    String version = lastEventId != null && watch ? lastEventId : params.get("resourceVersion");
    return new ListRequest(filter, order == null ? QuestionOrder.OLDEST_FIRST : QuestionOrder.parse(order), watch, version == null ? null : parseVersion(version),
        parseLimit(params.get("limit")), params.get("continue"));
  }

  private static boolean parseWatch(String value) {
    if (value == null || value.equals("false")) {
      return false;
    }
    if (value.equals("true")) {
      return true;
    }
    throw new InvalidQuestionException("watch must be true or false, not '" + value + "'");
  }

  private static long parseVersion(String value) {
    try {
      long version = Long.parseLong(value);
      if (version >= 0) {
        return version;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new InvalidQuestionException("resourceVersion must be a resourceVersion from this API, not '" + value + "'");
  }

  private static int parseLimit(String value) {
    if (value == null) {
      return DEFAULT_LIMIT;
    }
    try {
      int limit = Integer.parseInt(value);
      if (limit >= 1 && limit <= MAX_LIMIT) {
        return limit;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new InvalidQuestionException("limit must be a whole number from 1 to " + MAX_LIMIT + ", not '" + value + "'");
  }
}
