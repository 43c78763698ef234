package ark.broker.question;

import java.time.Instant;

/**
 * What happens to a question nobody answers, and what has happened so far: its expiry, its escalation rules, and
 * when it was reminded and escalated (null until then).
 */
public record FollowUps(Instant expiresAt, Escalation escalation, Instant remindedAt, Instant escalatedAt) {
  /** A new question's: nothing has happened yet. */
  public static FollowUps planned(Instant expiresAt, Escalation escalation) {
    return new FollowUps(expiresAt, escalation, null, null);
  }

  FollowUps reminded(Instant now) {
    return new FollowUps(expiresAt, escalation, now, escalatedAt);
  }

  FollowUps escalated(Instant now) {
    return new FollowUps(expiresAt, escalation, remindedAt, now);
  }
}
