package ark.broker.question;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Question ids: random, unless the asker named its request. A named request (idempotency key, or the
 * Query and LLM tool call it comes from) always maps to the same id, so a replayed tool call finds
 * the question it already asked instead of asking a human twice.
 */
public final class QuestionIds {
  private static final String PREFIX = "q-";

  private QuestionIds() {
  }

  public static String forRequest(NewQuestion request) {
    // Scoped to the sender: no one can create, ahead of an agent, the question that agent's request names.
    String scope = request.sender() == null ? "" : request.sender();
    if (request.idempotencyKey() != null) {
      return derived("idempotency-key\n" + scope + "\n" + request.idempotencyKey());
    }
    if (request.query() != null && request.toolCallId() != null) {
      return derived("tool-call\n" + scope + "\n" + request.query() + "\n" + request.toolCallId());
    }
    return PREFIX + UUID.randomUUID();
  }

  private static String derived(String name) {
    return PREFIX + UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
  }
}
