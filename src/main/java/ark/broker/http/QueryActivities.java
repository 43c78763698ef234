package ark.broker.http;

import ark.broker.bus.QueryActivity;
import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;

/**
 * What an event's {@code data} (or a {@code POST /sessions} body) says about a Query of a session: the fields
 * upstream's sessions projection reads ({@code sessionId}, {@code queryName}, {@code queryNamespace},
 * {@code conversationId}, {@code agent}, {@code team}, {@code tool} or {@code toolName}, {@code targetType},
 * {@code error}), texts only; empty ones count as absent, as upstream's checks treat them.
 */
final class QueryActivities {
  private QueryActivities() {
  }

  /**
   * The activity {@code fields} report, or null when they name no session or no Query (upstream drops those).
   *
   * @param at when it happened, epoch milliseconds
   */
  static QueryActivity of(JsonNode fields, String reason, long at) {
    String session = text(fields, "sessionId");
    String query = text(fields, "queryName");
    if (session == null || query == null) {
      return null;
    }
    String tool = text(fields, "tool");
    return new QueryActivity(session, query, reason, at, text(fields, "error"), text(fields, "queryNamespace"),
        text(fields, "conversationId"), text(fields, "agent"), text(fields, "team"),
        tool != null ? tool : text(fields, "toolName"), text(fields, "targetType"));
  }

  /** A non-empty text field, or null. */
  static String text(JsonNode fields, String name) {
    JsonNode value = fields == null ? null : fields.get(name);
    return value != null && value.isTextual() && !value.textValue().isEmpty() ? value.textValue() : null;
  }

  /**
   * An event's {@code timestamp} (RFC 3339, as the controller writes it with nanoseconds, or any ISO-8601 instant
   * with an offset) in epoch milliseconds, or {@code otherwise} when it has none that parses; one beyond the dates
   * JavaScript has is refused ({@link ArkDates}).
   */
  static long timestamp(JsonNode event, long otherwise) {
    String text = text(event, "timestamp");
    Instant at = text == null ? null : ArkDates.instant(text);
    return at == null ? otherwise : ArkDates.epochMillis(at, "timestamp", text);
  }
}
