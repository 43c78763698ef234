package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonValue;

/** What happened to a question; the wire names are the SSE event names of the REST watch. */
public enum EventType {
  CREATED("question_created"),
  ANSWERED("question_answered"),
  CANCELLED("question_cancelled"),
  EXPIRED("question_expired"),
  DELIVERED("question_delivered"),
  /** Nobody answered in escalation.remindAfterSeconds: the channels remind the same people. */
  REMINDED("question_reminded"),
  /** Nobody answered in escalation.escalateAfterSeconds: escalation.escalateTo are asked too. */
  ESCALATED("question_escalated"),
  /**
   * A settled question outlived its retention: it leaves the API, while the audit trail keeps it (the record holds
   * it as it was) until the audit trail's own retention ends.
   */
  REMOVED("question_removed"),
  /** The audit trail's retention of a removed question ended: nothing of it is kept (on Kafka, a tombstone). */
  FORGOTTEN("question_forgotten");

  private final String wireName;

  EventType(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  /** The event that leaves a question in its current status, for restating state in a snapshot. */
  public static EventType leadingTo(QuestionStatus status) {
    return switch (status) {
      case PENDING -> CREATED;
      case ANSWERED -> ANSWERED;
      case CANCELLED -> CANCELLED;
      case EXPIRED -> EXPIRED;
    };
  }
}
