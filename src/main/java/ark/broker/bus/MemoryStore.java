package ark.broker.bus;

import ark.broker.auth.Actor;
import io.vertx.core.Future;

import java.util.List;
import java.util.Map;

/**
 * Conversation memory, as Ark's executors, ark-api and dashboard keep and read it (the {@code /messages} and
 * {@code /conversations} routes of Ark's broker): messages appended per conversation and Query, each with a
 * sequence that is its position in the memory log, so cursors are stable across replicas, restarts and purges.
 * Served over the bus at {@link Addresses#MEMORY_STORE}; appended messages are published on
 * {@link Addresses#MEMORY_APPENDED}. Refusals fail with a {@link StoreFailure}.
 */
public interface MemoryStore {
  /**
   * Appends {@code messages} in their order, each an item of its own; completes once all are durable and applied on
   * this replica, so a read anywhere afterwards sees them.
   */
  Future<Void> append(Actor actor, NewMessages messages);

  /**
   * The items the filter matches with a sequence above {@code cursor}, in sequence order, rendered as Ark's broker
   * renders them; at most {@code limit} of them, or all when {@code limit} is 0.
   */
  Future<ItemPage> messages(Actor actor, MessageFilter filter, long cursor, int limit);

  /** How many conversations and messages there are, and per conversation its messages and Queries. */
  Future<MemoryStatus> status(Actor actor);

  /** The conversations that have messages, in the order their first kept message came. */
  Future<List<String>> conversations(Actor actor);

  Future<Void> deleteConversation(Actor actor, String conversationId);

  /** Deletes a Query's messages: in one conversation, or in all of them when {@code conversationId} is null. */
  Future<Void> deleteQueryMessages(Actor actor, String conversationId, String queryId);

  /** Deletes every message; sequences go on where they were. */
  Future<Void> deleteAll(Actor actor);

  /**
   * Messages of one {@code POST /messages}.
   *
   * @param messages each message as compact JSON, exactly as it will be read back
   * @param ttlSeconds how long they stay visible, or null for the store's default
   */
  record NewMessages(String conversationId, String queryId, List<byte[]> messages, Long ttlSeconds) {
    public NewMessages {
      messages = List.copyOf(messages);
    }
  }

  /** Which messages a read wants: any or all of a conversation and a Query (null: any). */
  record MessageFilter(String conversationId, String queryId) {
  }

  /** @param conversations per conversation id: its messages and the Queries they came from */
  record MemoryStatus(int totalConversations, long totalMessages, Map<String, ConversationCounts> conversations) {
  }

  record ConversationCounts(long messages, int queries) {
  }
}
