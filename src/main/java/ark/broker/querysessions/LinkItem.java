package ark.broker.querysessions;

import ark.broker.log.RetainedItems;

/**
 * The first message conversation memory kept for a Query (by name): the conversation it links the Query to when the
 * Query's events name none (upstream's {@code applyMessage}).
 */
final class LinkItem extends RetainedItems.Item {
  final String queryName;
  final String conversationId;

  LinkItem(long sequence, long at, String queryName, String conversationId) {
    super(sequence, at, Long.MAX_VALUE, 96 + 2 * (queryName.length() + conversationId.length()));
    this.queryName = queryName;
    this.conversationId = conversationId;
  }
}
