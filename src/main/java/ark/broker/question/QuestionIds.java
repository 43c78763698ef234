package ark.broker.question;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.UUID;

/**
 * Question ids: time-ordered, unless the asker named its request. A named request (idempotency key, or the
 * Query and LLM tool call it comes from) always maps to the same id, so a replayed tool call finds
 * the question it already asked instead of asking a human twice. The others are UUIDs of version 7 (RFC 9562):
 * the millisecond, a counter within it, then random bits. Lists order questions by creation time and then by id,
 * and creation times are milliseconds, so ids that follow each other keep the questions one broker creates in the
 * same millisecond in the order it created them.
 */
public final class QuestionIds {
  private static final String PREFIX = "q-";
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int COUNTER_BITS = 12;
  private static long lastMillis;
  private static int counter;

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
    return PREFIX + timeOrdered(System.currentTimeMillis());
  }

  /**
   * A version 7 UUID greater than the last one made here: a new millisecond starts its counter at a random value
   * in the lower half, so the upper half leaves room for a burst; a counter that runs out moves on to the next
   * millisecond, and so does a clock set back, rather than break the order.
   */
  static synchronized UUID timeOrdered(long nowMillis) {
    if (nowMillis > lastMillis) {
      lastMillis = nowMillis;
      counter = RANDOM.nextInt(1 << (COUNTER_BITS - 1));
    } else if (++counter == 1 << COUNTER_BITS) {
      lastMillis++;
      counter = 0;
    }
    long mostSignificant = lastMillis << 16 | 0x7000L | counter;
    long leastSignificant = RANDOM.nextLong() >>> 2 | 0x8000_0000_0000_0000L;
    return new UUID(mostSignificant, leastSignificant);
  }

  private static String derived(String name) {
    return PREFIX + UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
  }
}
