package ark.broker.memory;

import ark.broker.bus.ItemPage;
import ark.broker.bus.MemoryStore.ConversationCounts;
import ark.broker.bus.MemoryStore.MemoryStatus;
import ark.broker.bus.MemoryStore.MessageFilter;
import ark.broker.log.AgingView;
import ark.broker.log.RetainedItems;
import ark.broker.log.Sequence;
import ark.broker.log.StoreMeters;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The view of the memory log: every message kept, in sequence order, and indexed by conversation and by Query, so a
 * conversation's read costs what it returns, however many messages are kept in all. Bounded by the settings' age
 * and bytes. One event loop only.
 */
final class Conversations implements AgingView<MemoryRecord, StoredMessage> {
  private final MemorySettings settings;
  private final StoreMeters meters;
  private final RetainedItems<StoredMessage> retained = new RetainedItems<>();
  /** In the order their first kept message came, as {@code GET /conversations} lists them. */
  private final Map<String, Conversation> byId = new LinkedHashMap<>();
  private final Map<String, Messages> byQuery = new HashMap<>();

  /** Messages of one conversation or one Query, and how many of them are kept. */
  private static class Messages {
    final Sequence<StoredMessage> messages = new Sequence<>();
    long count;

    void add(StoredMessage message) {
      messages.add(message);
      count++;
    }

    /** One of them was dropped; whether none is left. */
    boolean dropped() {
      messages.droppedOne();
      return --count == 0;
    }
  }

  /** A conversation's messages, and how many of them each Query sent. */
  private static final class Conversation extends Messages {
    final Map<String, Integer> perQuery = new HashMap<>();
  }

  Conversations(MemorySettings settings, StoreMeters meters) {
    this.settings = settings;
    this.meters = meters;
  }

  /** Applies one record of the log, at its position; returns the message it kept, or null. */
  @Override
  public StoredMessage apply(long position, MemoryRecord record, long now) {
    StoredMessage kept = null;
    if (record instanceof MemoryRecord.Appended appended) {
      kept = StoredMessage.of(position, appended);
      retained.add(kept);
      meters.appended();
      Conversation conversation = byId.computeIfAbsent(kept.conversationId, id -> new Conversation());
      conversation.add(kept);
      conversation.perQuery.merge(kept.queryId, 1, Integer::sum);
      byQuery.computeIfAbsent(kept.queryId, id -> new Messages()).add(kept);
    } else if (record instanceof MemoryRecord.ConversationDeleted deleted) {
      Conversation conversation = byId.get(deleted.conversationId());
      if (conversation != null) {
        retained.dropAll(conversation.messages, message -> true, this::forget);
      }
    } else if (record instanceof MemoryRecord.QueryDeleted deleted) {
      Messages ofQuery = byQuery.get(deleted.queryId());
      if (ofQuery != null) {
        retained.dropAll(ofQuery.messages, message -> deleted.conversationId() == null
            || message.conversationId.equals(deleted.conversationId()), this::forget);
      }
    } else {
      retained.dropAll(retained.all(), message -> true, this::forget);
    }
    trim(now);
    return kept;
  }

  /** Drops what has aged out, grown beyond the bytes allowed, or expired. */
  @Override
  public void trim(long now) {
    retained.trim(now, settings.maxBytes(), settings.maxAgeMillis(), this::forget);
  }

  /** Up to where the memory log may forget: what is older than every message kept. */
  @Override
  public long floor() {
    return retained.floor();
  }

  int size() {
    return retained.size();
  }

  long bytes() {
    return retained.bytes();
  }

  /** The page a read asks for; the caller trims first, so every message held and not dropped is visible. */
  ItemPage messages(MessageFilter filter, long cursor, int limit) {
    Sequence<StoredMessage> candidates;
    long total;
    if (filter.conversationId() != null) {
      Conversation conversation = byId.get(filter.conversationId());
      if (conversation == null) {
        return new ItemPage(List.of(), 0, false, cursor);
      }
      candidates = conversation.messages;
      total = filter.queryId() == null ? conversation.count : conversation.perQuery.getOrDefault(filter.queryId(), 0);
    } else if (filter.queryId() != null) {
      Messages ofQuery = byQuery.get(filter.queryId());
      if (ofQuery == null) {
        return new ItemPage(List.of(), 0, false, cursor);
      }
      candidates = ofQuery.messages;
      total = ofQuery.count;
    } else {
      candidates = retained.all();
      total = retained.size();
    }
    int most = limit == 0 ? Integer.MAX_VALUE : limit;
    List<byte[]> items = new ArrayList<>(Math.min(most, 256));
    long last = cursor;
    for (int i = candidates.firstAfter(cursor); i < candidates.size(); i++) {
      StoredMessage message = candidates.get(i);
      if (message.dropped() || filter.queryId() != null && !message.queryId.equals(filter.queryId())) {
        continue;
      }
      if (items.size() == most) {
        return new ItemPage(items, total, true, last);
      }
      items.add(message.item);
      last = message.position();
    }
    return new ItemPage(items, total, false, last);
  }

  MemoryStatus status() {
    Map<String, ConversationCounts> counts = new LinkedHashMap<>();
    byId.forEach((id, conversation) -> counts.put(id, new ConversationCounts(conversation.count,
        conversation.perQuery.size())));
    return new MemoryStatus(byId.size(), retained.size(), counts);
  }

  List<String> conversations() {
    return List.copyOf(byId.keySet());
  }

  /** Takes a dropped message out of the indexes. */
  private void forget(StoredMessage message) {
    meters.dropped();
    Conversation conversation = byId.get(message.conversationId);
    if (conversation != null) {
      conversation.perQuery.computeIfPresent(message.queryId, (query, count) -> count == 1 ? null : count - 1);
      if (conversation.dropped()) {
        byId.remove(message.conversationId);
      }
    }
    Messages ofQuery = byQuery.get(message.queryId);
    if (ofQuery != null && ofQuery.dropped()) {
      byQuery.remove(message.queryId);
    }
  }
}
