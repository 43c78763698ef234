package ark.broker.question;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A question from an agent to a person, as every surface shows it: made of the parts that change together.
 * Immutable: each change makes a new snapshot, replacing the part it changes, which is what the event log stores
 * and watchers receive.
 *
 * @param resourceVersion log position of the event that last changed this question (set when the
 *     event is applied, so never part of what a writer decides; 0 until then). A string on the wire,
 *     opaque to clients as in Kubernetes.
 * @param history who did what, for {@code GET /questions/{id}/events} and the audit trail; kept in the log, not
 *     shown with the question
 */
public record Question(String id, Asked asked, AnswerForm form, FollowUps followUps, Outcome outcome, Origin origin,
                       Instant createdAt, Instant updatedAt, List<Delivery> deliveries, List<QuestionAction> history,
                       long resourceVersion) {

  public Question {
    deliveries = deliveries == null ? List.of() : List.copyOf(deliveries);
    history = history == null ? List.of() : List.copyOf(history);
  }

  /** A question of which nothing is known but its id: what a record that ends it (a tombstone) says of it. */
  public static Question knownOnlyAs(String id) {
    return new Question(id, new Asked(null, null, null, null, null, null, null, false), new AnswerForm(null, null, false, null),
        new FollowUps(null, null, null, null), new Outcome(null, null, null, null, null, false, null),
        new Origin(null, null, null), null, null, null, null, 0);
  }

  public boolean isPending() {
    return outcome.status() == QuestionStatus.PENDING;
  }

  /**
   * The service that asked this question for its sender (a credential acting for an agent), from the creation in
   * its history; null when the sender asked as itself.
   */
  public String askedOnBehalfBy() {
    if (history.isEmpty() || history.get(0).type() != EventType.CREATED) {
      return null;
    }
    Attribution by = history.get(0).by();
    return by == null || by.actingFor() == null ? null : by.principal();
  }

  /** A plain answer; see {@link #answer(Reply, String, Instant)}. */
  public Question answer(String answer, String by, Instant now) {
    return answer(new Reply.Text(answer), by, now);
  }

  /**
   * First answer wins: the answer must come while pending and fit the question. A plain question takes text (one
   * of its options, where it has them); a form question takes an object its responseSchema accepts; an approval
   * takes a decision, or text naming one (approve, reject) so that clients that only know {@code response} can
   * decide too. {@code response} always holds the answer as text: a form's answer as JSON, a decision's action.
   */
  public Question answer(Reply reply, String by, Instant now) {
    return answer(reply, by, now, false);
  }

  private Question answer(Reply reply, String by, Instant now, boolean onTimeout) {
    requirePending("answered");
    if (by != null) {
      ArkUri.require("answeredBy", by);
    }
    if (form.kind() == QuestionKind.APPROVAL) {
      return decided(asVerdict(reply), by, now, onTimeout);
    }
    ResponseSchema responseSchema = form.responseSchema();
    if (responseSchema != null) {
      if (!(reply instanceof Reply.Form fields)) {
        throw new InvalidQuestionException("question " + id + " has a responseSchema: answer with an answer object of the fields "
            + responseSchema.fields().keySet());
      }
      ObjectNode checked = responseSchema.validate(fields.answer());
      return answered(checked.toString(), checked, null, by, now, onTimeout);
    }
    List<String> options = asked.options();
    if (!(reply instanceof Reply.Text text)) {
      throw new InvalidQuestionException("question " + id + " takes a plain response"
          + (options == null ? "" : ", one of " + options) + "; it has no responseSchema and is no approval");
    }
    String answer = text.response();
    if (answer == null || answer.isBlank()) {
      throw new InvalidQuestionException("response must be a non-empty string");
    }
    if (answer.length() > Limits.TEXT) {
      throw new InvalidQuestionException("response is longer than " + Limits.TEXT + " characters");
    }
    if (options != null && !options.contains(answer)) {
      throw new InvalidQuestionException("response must be one of the question's options " + options);
    }
    return answered(answer, null, null, by, now, onTimeout);
  }

  private Reply.Verdict asVerdict(Reply reply) {
    if (reply instanceof Reply.Verdict verdict) {
      return verdict;
    }
    Decision.Action action = reply instanceof Reply.Text text && text.response() != null
        ? Decision.Action.ofResponse(text.response()) : null;
    if (action == null) {
      throw new InvalidQuestionException("question " + id + " is an approval: answer with a decision "
          + "{\"action\": \"approved\" or \"rejected\", \"reason\": ...}");
    }
    return new Reply.Verdict(action, null, null);
  }

  private Question decided(Reply.Verdict verdict, String by, Instant now, boolean onTimeout) {
    String reason = verdict.reason() == null || verdict.reason().isBlank() ? null : verdict.reason().strip();
    if (form.reasonRequired() && reason == null) {
      throw new InvalidQuestionException("decision.reason is required: question " + id + " asks for a reason with every decision");
    }
    if (reason != null && reason.length() > Limits.TEXT) {
      throw new InvalidQuestionException("decision.reason is longer than " + Limits.TEXT + " characters");
    }
    ObjectNode edited = null;
    if (verdict.arguments() != null && !verdict.arguments().isNull()) {
      if (form.arguments() == null) {
        throw new InvalidQuestionException("decision.arguments: question " + id + " offers no arguments to edit");
      }
      if (verdict.action() != Decision.Action.APPROVED) {
        throw new InvalidQuestionException("decision.arguments go with approved only: a rejected call runs with no arguments");
      }
      if (!verdict.arguments().isObject() || verdict.arguments().toString().length() > Limits.TEXT) {
        throw new InvalidQuestionException("decision.arguments must be a JSON object of at most " + Limits.TEXT + " characters");
      }
      edited = verdict.arguments().deepCopy();
    }
    Decision decision = new Decision(verdict.action(), reason, edited, by, now);
    return answered(verdict.action().wireName(), null, decision, by, now, onTimeout);
  }

  private Question answered(String text, ObjectNode answer, Decision decision, String by, Instant now, boolean onTimeout) {
    return withOutcome(Outcome.answered(text, answer, decision, by, onTimeout, now), now);
  }

  public Question cancel(Instant now) {
    requirePending("cancelled");
    return withOutcome(Outcome.ended(QuestionStatus.CANCELLED), now);
  }

  public Question expire(Instant now) {
    requirePending("expired");
    return withOutcome(Outcome.ended(QuestionStatus.EXPIRED), now);
  }

  public boolean isDueToExpire(Instant now) {
    return isPending() && followUps.expiresAt() != null && !followUps.expiresAt().isAfter(now);
  }

  /**
   * Who is asked: the recipient, and once the question was escalated, those it was escalated to. They may
   * see and answer it, and the channels that reach people one by one reach each of them.
   */
  public List<String> recipients() {
    String recipient = asked.recipient();
    if (followUps.escalatedAt() == null) {
      return List.of(recipient);
    }
    List<String> escalateTo = followUps.escalation().escalateTo();
    List<String> all = new ArrayList<>(escalateTo.size() + 1);
    all.add(recipient);
    escalateTo.stream().filter(to -> !to.equals(recipient)).forEach(all::add);
    return all;
  }

  /** Whether the question asks {@code name}: its recipient, or since an escalation one of those it was escalated to. */
  public boolean asks(String name) {
    return name.equals(asked.recipient())
        || followUps.escalatedAt() != null && followUps.escalation().escalateTo().contains(name);
  }

  /** When the broker next has something to do about this pending question (remind, escalate, time out), or null. */
  public Instant nextDeadline() {
    if (!isPending()) {
      return null;
    }
    Instant next = followUps.expiresAt();
    Escalation escalation = followUps.escalation();
    if (escalation != null) {
      next = earlier(next, followUps.remindedAt() == null ? escalation.remindAt(createdAt) : null);
      next = earlier(next, followUps.escalatedAt() == null ? escalation.escalateAt(createdAt) : null);
    }
    return next;
  }

  /**
   * What is due now, one step at a time (each is an event of its own): the timeout, else the escalation, else
   * the reminder; null if nothing is. A step that was due while no broker ran still happens, once.
   */
  public EventType followUpDue(Instant now) {
    Escalation escalation = followUps.escalation();
    if (isDueToExpire(now)) {
      return escalation != null && escalation.onTimeout() != null ? EventType.ANSWERED : EventType.EXPIRED;
    }
    if (!isPending() || escalation == null) {
      return null;
    }
    if (followUps.escalatedAt() == null && isDue(escalation.escalateAt(createdAt), now)) {
      return EventType.ESCALATED;
    }
    return followUps.remindedAt() == null && isDue(escalation.remindAt(createdAt), now) ? EventType.REMINDED : null;
  }

  /** This question after the step {@link #followUpDue} names, taken by the broker ({@code by}); itself if none is due. */
  public Question followUp(Instant now, String by) {
    EventType due = followUpDue(now);
    if (due == null) {
      return this;
    }
    return switch (due) {
      case ANSWERED -> answer(followUps.escalation().timeoutReply(), by, now, true);
      case EXPIRED -> expire(now);
      case ESCALATED -> withFollowUps(followUps.escalated(now), now);
      case REMINDED -> withFollowUps(followUps.reminded(now), now);
      default -> throw new IllegalStateException("no follow-up is a " + due);
    };
  }

  private static boolean isDue(Instant at, Instant now) {
    return at != null && !at.isAfter(now);
  }

  private static Instant earlier(Instant one, Instant other) {
    return one == null ? other : other == null || one.isBefore(other) ? one : other;
  }

  /** Adds a delivery, or replaces the one with the same channel and ref (a channel updating its record). */
  public Question withDelivery(Delivery delivery, Instant now) {
    List<Delivery> all = new ArrayList<>(deliveries);
    all.removeIf(d -> d.channel().equals(delivery.channel()) && d.ref().equals(delivery.ref()));
    all.add(delivery);
    return new Question(id, asked, form, followUps, outcome, origin, createdAt, now, all, history, resourceVersion);
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
    return new Question(id, asked, form, followUps, outcome, origin, createdAt, updatedAt, deliveries, all,
        resourceVersion);
  }

  public Question withResourceVersion(long position) {
    return new Question(id, asked, form, followUps, outcome, origin, createdAt, updatedAt, deliveries, history,
        position);
  }

  /** The snapshot a writer logs: its resourceVersion is the position the log gives it. */
  public Question withoutVersion() {
    return withResourceVersion(0);
  }

  private Question withOutcome(Outcome after, Instant now) {
    return new Question(id, asked, form, followUps, after, origin, createdAt, now, deliveries, history, resourceVersion);
  }

  private Question withFollowUps(FollowUps after, Instant now) {
    return new Question(id, asked, form, after, outcome, origin, createdAt, now, deliveries, history, resourceVersion);
  }

  private void requirePending(String wanted) {
    if (!isPending()) {
      throw new QuestionConflictException(
          "question " + id + " is already " + outcome.status().wireName() + " and cannot be " + wanted);
    }
  }
}
