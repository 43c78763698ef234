package ark.broker.events;

import ark.broker.bus.QueryActivity;
import ark.broker.log.FlatRecord;
import ark.broker.log.RecordCodec;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One record of the events log: an event posted (with the activity it reports, if any), an activity of a
 * {@code POST /sessions}, or a deletion. An event's sequence is its record's position. Each record says when it was
 * written ({@code at}, epoch milliseconds, the writer's clock), so every replica ages it alike.
 */
sealed interface EventRecord {
  long at();

  /** The key of its record in the log: what orders it (a Query, a session), or empty for the whole store. */
  String key();

  /**
   * @param expiresAt epoch milliseconds after which the event is no longer visible, or {@link Long#MAX_VALUE}
   * @param activity what it says about a Query of a session, or null
   */
  record Posted(String queryId, String sessionId, long at, long expiresAt, byte[] event, QueryActivity activity)
      implements EventRecord {
    @Override
    public String key() {
      return queryId;
    }
  }

  /** What a {@code POST /sessions} said: for the sessions only. */
  record ActivityRecorded(long at, QueryActivity activity) implements EventRecord {
    @Override
    public String key() {
      return activity.sessionId();
    }
  }

  record QueryDeleted(String queryId, long at) implements EventRecord {
    @Override
    public String key() {
      return queryId;
    }
  }

  /** A {@code POST /messages} with no message: the conversation of a Query, for the sessions only. */
  record QueryAttached(String queryName, String conversationId, long at) implements EventRecord {
    @Override
    public String key() {
      return queryName;
    }
  }

  /** A Query taken out of a session; its events stay. */
  record SessionQueryForgotten(String sessionId, String queryName, long at) implements EventRecord {
    @Override
    public String key() {
      return sessionId;
    }
  }

  /** Every event deleted; the sessions keep what they learnt. */
  record Purged(long at) implements EventRecord {
    @Override
    public String key() {
      return "";
    }
  }

  /** Every session forgotten; the events stay. */
  record SessionsPurged(long at) implements EventRecord {
    @Override
    public String key() {
      return "";
    }
  }

  /** Records as flat JSON, the event kept as its bytes and the activity as fields of its own. */
  RecordCodec<EventRecord> CODEC = new RecordCodec<>() {
    @Override
    public EventRecord decode(byte[] payload) throws IOException {
      FlatRecord record = FlatRecord.decode(payload, "event");
      long at = record.number("at", 0);
      String type = record.text("type");
      return switch (type == null ? "" : type) {
        case "event" -> new Posted(record.text("query"), record.text("session"), at,
            record.number("expires", Long.MAX_VALUE), record.nested(), activity(record));
        case "activity" -> {
          QueryActivity activity = activity(record);
          if (activity == null) {
            throw new IOException("an activity record without its session and Query");
          }
          yield new ActivityRecorded(at, activity);
        }
        case "query-deleted" -> new QueryDeleted(record.text("query"), at);
        case "query-attached" -> new QueryAttached(record.text("query"), record.text("conversation"), at);
        case "session-query-forgotten" -> new SessionQueryForgotten(record.text("session"), record.text("query"), at);
        case "purged" -> new Purged(at);
        case "sessions-purged" -> new SessionsPurged(at);
        default -> throw new IOException("not an events record: type " + type);
      };
    }

    @Override
    public byte[] encode(EventRecord record) {
      Map<String, Object> fields = new LinkedHashMap<>();
      byte[] event = null;
      if (record instanceof Posted posted) {
        fields.put("type", "event");
        fields.put("query", posted.queryId());
        fields.put("session", posted.sessionId());
        fields.put("expires", posted.expiresAt() == Long.MAX_VALUE ? null : posted.expiresAt());
        putActivity(fields, posted.activity());
        event = posted.event();
      } else if (record instanceof ActivityRecorded recorded) {
        fields.put("type", "activity");
        putActivity(fields, recorded.activity());
      } else if (record instanceof QueryDeleted deleted) {
        fields.put("type", "query-deleted");
        fields.put("query", deleted.queryId());
      } else if (record instanceof QueryAttached attached) {
        fields.put("type", "query-attached");
        fields.put("query", attached.queryName());
        fields.put("conversation", attached.conversationId());
      } else if (record instanceof SessionQueryForgotten forgotten) {
        fields.put("type", "session-query-forgotten");
        fields.put("session", forgotten.sessionId());
        fields.put("query", forgotten.queryName());
      } else if (record instanceof Purged) {
        fields.put("type", "purged");
      } else {
        fields.put("type", "sessions-purged");
      }
      fields.put("at", record.at());
      return FlatRecord.encode(fields, "event", event);
    }
  };

  private static void putActivity(Map<String, Object> fields, QueryActivity activity) {
    if (activity == null) {
      return;
    }
    fields.put("a.session", activity.sessionId());
    fields.put("a.query", activity.queryName());
    fields.put("a.reason", activity.reason());
    fields.put("a.at", activity.at());
    fields.put("a.error", activity.error());
    fields.put("a.namespace", activity.namespace());
    fields.put("a.conversation", activity.conversationId());
    fields.put("a.agent", activity.agent());
    fields.put("a.team", activity.team());
    fields.put("a.tool", activity.tool());
    fields.put("a.targetType", activity.targetType());
  }

  /** The activity a record carries, or null when it names no session and Query. */
  private static QueryActivity activity(FlatRecord record) {
    String session = record.text("a.session");
    String query = record.text("a.query");
    if (session == null || query == null) {
      return null;
    }
    return new QueryActivity(session, query, record.text("a.reason"), record.number("a.at", record.number("at", 0)),
        record.text("a.error"), record.text("a.namespace"), record.text("a.conversation"), record.text("a.agent"),
        record.text("a.team"), record.text("a.tool"), record.text("a.targetType"));
  }
}
