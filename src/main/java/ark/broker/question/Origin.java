package ark.broker.question;

/**
 * Where a question came from: the Ark Query and tool call that asked it, and the asker's idempotency key; what a
 * replayed request is recognised by.
 */
public record Origin(QueryRef query, String toolCallId, String idempotencyKey) {
}
