package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonView;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A question from an agent to a person, as every surface shows it. Immutable: each change makes a
 * new snapshot, which is what the event log stores and watchers receive.
 *
 * @param resourceVersion log position of the event that last changed this question (set when the
 *     event is applied, so never part of what a writer decides; 0 until then). A string on the wire,
 *     opaque to clients as in Kubernetes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Question(
    String id,
    // what was asked, of whom, by whom
    String sender, String recipient, List<String> channels, String content, String context, List<String> options,
    Priority priority, boolean blocking,
    // what became of it
    QuestionStatus status, String response, String answeredBy,
    Instant createdAt, Instant updatedAt, Instant answeredAt, Instant expiresAt,
    // where it came from
    QueryRef query, String toolCallId, String idempotencyKey,
    List<Delivery> deliveries,
    // who did what, for GET /questions/{id}/events and the audit trail; kept in the log, not shown with the question
    @JsonView(QuestionJson.Kept.class) List<QuestionAction> history,
    @JsonFormat(shape = JsonFormat.Shape.STRING) @JsonInclude(JsonInclude.Include.NON_DEFAULT) long resourceVersion) {

  public Question {
    channels = channels == null ? List.of() : List.copyOf(channels);
    options = options == null || options.isEmpty() ? null : List.copyOf(options);
    deliveries = deliveries == null ? List.of() : List.copyOf(deliveries);
    history = history == null ? List.of() : List.copyOf(history);
  }

  @JsonIgnore
  public boolean isPending() {
    return status == QuestionStatus.PENDING;
  }

  /** First answer wins: the answer must come while pending and, where options exist, be one of them. */
  public Question answer(String answer, String by, Instant now) {
    requirePending("answered");
    if (answer == null || answer.isBlank()) {
      throw new InvalidQuestionException("response must be a non-empty string");
    }
    if (answer.length() > Limits.TEXT) {
      throw new InvalidQuestionException("response is longer than " + Limits.TEXT + " characters");
    }
    if (options != null && !options.contains(answer)) {
      throw new InvalidQuestionException("response must be one of the question's options " + options);
    }
    if (by != null) {
      ArkUri.require("answeredBy", by);
    }
    return new Question(id, sender, recipient, channels, content, context, options, priority, blocking,
        QuestionStatus.ANSWERED, answer, by, createdAt, now, now, expiresAt, query, toolCallId,
        idempotencyKey, deliveries, history, resourceVersion);
  }

  public Question cancel(Instant now) {
    requirePending("cancelled");
    return withFinalStatus(QuestionStatus.CANCELLED, now);
  }

  public Question expire(Instant now) {
    requirePending("expired");
    return withFinalStatus(QuestionStatus.EXPIRED, now);
  }

  public boolean isDueToExpire(Instant now) {
    return isPending() && expiresAt != null && !expiresAt.isAfter(now);
  }

  /** Adds a delivery, or replaces the one with the same channel and ref (a channel updating its record). */
  public Question withDelivery(Delivery delivery, Instant now) {
    List<Delivery> all = new ArrayList<>(deliveries);
    all.removeIf(d -> d.channel().equals(delivery.channel()) && d.ref().equals(delivery.ref()));
    all.add(delivery);
    return new Question(id, sender, recipient, channels, content, context, options, priority, blocking,
        status, response, answeredBy, createdAt, now, answeredAt, expiresAt, query, toolCallId,
        idempotencyKey, all, history, resourceVersion);
  }

  /**
   * This question with one more entry in its history. The history keeps its first entry (the creation) and the
   * newest ones up to {@link Limits#HISTORY}, so a question that keeps changing cannot grow without bound.
   */
  public Question recording(QuestionAction action) {
    List<QuestionAction> all = new ArrayList<>(history);
    all.add(action);
    if (all.size() > Limits.HISTORY) {
      all.remove(1);
    }
    return new Question(id, sender, recipient, channels, content, context, options, priority, blocking,
        status, response, answeredBy, createdAt, updatedAt, answeredAt, expiresAt, query, toolCallId,
        idempotencyKey, deliveries, all, resourceVersion);
  }

  public Question withResourceVersion(long position) {
    return new Question(id, sender, recipient, channels, content, context, options, priority, blocking,
        status, response, answeredBy, createdAt, updatedAt, answeredAt, expiresAt, query, toolCallId,
        idempotencyKey, deliveries, history, position);
  }

  /** The snapshot a writer logs: its resourceVersion is the position the log gives it. */
  public Question withoutVersion() {
    return withResourceVersion(0);
  }

  private Question withFinalStatus(QuestionStatus finalStatus, Instant now) {
    return new Question(id, sender, recipient, channels, content, context, options, priority, blocking,
        finalStatus, null, null, createdAt, now, null, expiresAt, query, toolCallId, idempotencyKey,
        deliveries, history, resourceVersion);
  }

  private void requirePending(String wanted) {
    if (!isPending()) {
      throw new QuestionConflictException(
          "question " + id + " is already " + status.wireName() + " and cannot be " + wanted);
    }
  }
}
