package ark.broker.querysessions;

import ark.broker.wire.ItemWriter;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A session as upstream renders its {@code SessionEntry}: the same fields in the same order, timestamps as
 * JavaScript's {@code toISOString()}, conversations and participants derived from the Queries as upstream's
 * {@code recalculateConversations} and {@code recalculateParticipants} derive them.
 */
final class SessionJson {
  private static final JsonFactory JSON = new JsonFactory();

  private SessionJson() {
  }

  static byte[] entry(SessionState session, Function<String, String> linkedConversation) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(512 + 256 * session.queries.size());
    try (JsonGenerator json = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      List<QueryState> queries = session.ordered();
      json.writeStartObject();
      json.writeStringField("sessionId", session.id);
      json.writeStringField("name", session.name());
      json.writeObjectFieldStart("queries");
      for (QueryState query : queries) {
        json.writeObjectFieldStart(query.name);
        query(json, query, query.conversationId(linkedConversation.apply(query.name)));
        json.writeEndObject();
      }
      json.writeEndObject();
      json.writeStringField("status", session.status);
      json.writeNumberField("errorCount", session.errorCount);
      json.writeStringField("createdAt", ItemWriter.timestamp(session.createdAt));
      json.writeStringField("lastActivity", ItemWriter.timestamp(session.lastActivity));
      conversationsAndParticipants(json, queries, linkedConversation);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** The watch's item: {@code {"sessionId","session","sequence"}}. */
  static byte[] change(SessionState session, byte[] entry) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(entry.length + 96);
    try (JsonGenerator json = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      json.writeStartObject();
      json.writeStringField("sessionId", session.id);
      json.writeFieldName("session");
      json.writeRawValue(new String(entry, java.nio.charset.StandardCharsets.UTF_8));
      json.writeNumberField("sequence", session.version);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static void query(JsonGenerator json, QueryState query, String conversationId) throws IOException {
    json.writeStringField("name", query.name);
    optional(json, "namespace", query.namespace);
    optional(json, "conversationId", conversationId);
    optional(json, "agent", query.agent);
    optional(json, "team", query.team);
    optional(json, "tool", query.tool);
    json.writeStringField("targetType", query.targetType);
    json.writeStringField("phase", query.phase.wire);
    optional(json, "error", query.error);
    json.writeStringField("createdAt", ItemWriter.timestamp(query.createdAt));
    if (query.completedAt != QueryState.NOT_COMPLETED) {
      json.writeStringField("completedAt", ItemWriter.timestamp(query.completedAt));
    }
    json.writeStringField("lastActivity", ItemWriter.timestamp(query.lastActivity));
  }

  private static void conversationsAndParticipants(JsonGenerator json, List<QueryState> queries,
                                                   Function<String, String> linkedConversation) throws IOException {
    Map<String, List<QueryState>> byConversation = new LinkedHashMap<>();
    for (QueryState query : queries) {
      String conversation = query.conversationId(linkedConversation.apply(query.name));
      if (conversation != null) {
        byConversation.computeIfAbsent(conversation, id -> new ArrayList<>()).add(query);
      }
    }
    Map<String, String> participantTypes = new LinkedHashMap<>();
    json.writeArrayFieldStart("conversations");
    for (Map.Entry<String, List<QueryState>> conversation : byConversation.entrySet()) {
      List<QueryState> ofConversation = conversation.getValue();
      LinkedHashSet<String> participants = new LinkedHashSet<>();
      int errors = 0;
      for (QueryState query : ofConversation) {
        String participant = query.team != null ? query.team : query.agent != null ? query.agent : query.tool;
        if (participant != null) {
          participants.add(participant);
        }
        errors += query.phase == Phase.ERROR ? 1 : 0;
      }
      String name = participants.isEmpty() ? conversation.getKey() : participants.iterator().next();
      String firstType = ofConversation.get(0).targetType;
      String type = firstType.equals("team") || firstType.equals("tool") ? firstType : "agent";
      participantTypes.putIfAbsent(name, type);
      QueryState first = ofConversation.get(0);
      QueryState last = ofConversation.get(ofConversation.size() - 1);
      json.writeStartObject();
      json.writeStringField("conversationId", conversation.getKey());
      json.writeStringField("name", name);
      json.writeArrayFieldStart("participants");
      for (String participant : participants) {
        json.writeString(participant);
      }
      json.writeEndArray();
      json.writeNumberField("messageCount", ofConversation.size());
      json.writeStringField("duration", duration(first.createdAt, last.completedAt));
      json.writeStringField("startTime", ItemWriter.timestamp(first.createdAt));
      json.writeStringField("participantType", type);
      json.writeNumberField("errorCount", errors);
      json.writeEndObject();
    }
    json.writeEndArray();
    json.writeArrayFieldStart("participants");
    for (Map.Entry<String, String> participant : participantTypes.entrySet()) {
      json.writeStartObject();
      json.writeStringField("id", participant.getKey());
      json.writeStringField("name", participant.getKey());
      json.writeStringField("type", participant.getValue());
      json.writeEndObject();
    }
    json.writeEndArray();
  }

  /** Upstream's {@code calculateDuration}: "ongoing" until the last Query completed, else "1m 5s" or "5s". */
  static String duration(long start, long end) {
    if (end == QueryState.NOT_COMPLETED) {
      return "ongoing";
    }
    long seconds = Math.floorDiv(end - start, 1000);
    long minutes = Math.floorDiv(seconds, 60);
    return minutes > 0 ? minutes + "m " + (seconds % 60) + "s" : seconds + "s";
  }

  private static void optional(JsonGenerator json, String name, String value) throws IOException {
    if (value != null) {
      json.writeStringField(name, value);
    }
  }
}
