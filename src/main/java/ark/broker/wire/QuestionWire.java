package ark.broker.wire;

import ark.broker.question.AnswerForm;
import ark.broker.question.Asked;
import ark.broker.question.Decision;
import ark.broker.question.Delivery;
import ark.broker.question.Escalation;
import ark.broker.question.FollowUps;
import ark.broker.question.Origin;
import ark.broker.question.Outcome;
import ark.broker.question.Priority;
import ark.broker.question.QueryRef;
import ark.broker.question.Question;
import ark.broker.question.QuestionAction;
import ark.broker.question.QuestionKind;
import ark.broker.question.QuestionStatus;
import ark.broker.question.ResponseSchema;
import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonView;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.StdConverter;

import java.time.Instant;
import java.util.List;

/**
 * A question as JSON has it: one flat object, its fields in the order the REST API, MCP and the event log have
 * always written them (what was asked, how it is answered, follow-ups, outcome, times, origin). The domain's
 * {@link Question} is made of parts; this is how they are laid out on the wire, and only {@link QuestionJson}
 * uses it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record QuestionWire(
    String id,
    String sender, String recipient, List<String> channels, String content, String context, List<String> options,
    Priority priority, boolean blocking,
    QuestionKind kind, ResponseSchema responseSchema,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean reasonRequired, ObjectNode arguments,
    Escalation escalation,
    QuestionStatus status, String response, ObjectNode answer, Decision decision, String answeredBy,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean answeredOnTimeout,
    Instant createdAt, Instant updatedAt, Instant answeredAt, Instant expiresAt, Instant remindedAt, Instant escalatedAt,
    QueryRef query, String toolCallId, String idempotencyKey,
    List<Delivery> deliveries,
    @JsonView(QuestionJson.Kept.class) List<QuestionAction> history,
    @JsonFormat(shape = JsonFormat.Shape.STRING) @JsonInclude(JsonInclude.Include.NON_DEFAULT) long resourceVersion) {

  static QuestionWire of(Question question) {
    Asked asked = question.asked();
    AnswerForm form = question.form();
    FollowUps followUps = question.followUps();
    Outcome outcome = question.outcome();
    Origin origin = question.origin();
    return new QuestionWire(question.id(),
        asked.sender(), asked.recipient(), asked.channels(), asked.content(), asked.context(), asked.options(),
        asked.priority(), asked.blocking(),
        form.kind(), form.responseSchema(), form.reasonRequired(), form.arguments(),
        followUps.escalation(),
        outcome.status(), outcome.response(), outcome.answer(), outcome.decision(), outcome.answeredBy(),
        outcome.answeredOnTimeout(),
        question.createdAt(), question.updatedAt(), outcome.answeredAt(), followUps.expiresAt(), followUps.remindedAt(),
        followUps.escalatedAt(),
        origin.query(), origin.toolCallId(), origin.idempotencyKey(),
        question.deliveries(), question.history(), question.resourceVersion());
  }

  Question toQuestion() {
    return new Question(id,
        new Asked(sender, recipient, channels, content, context, options, priority, blocking),
        new AnswerForm(kind, responseSchema, reasonRequired, arguments),
        new FollowUps(expiresAt, escalation, remindedAt, escalatedAt),
        new Outcome(status, response, answer, decision, answeredBy, answeredOnTimeout, answeredAt),
        new Origin(query, toolCallId, idempotencyKey),
        createdAt, updatedAt, deliveries, history, resourceVersion);
  }

  /** Writes a question as its wire form. */
  static final class Writing extends StdConverter<Question, QuestionWire> {
    @Override
    public QuestionWire convert(Question question) {
      return of(question);
    }
  }

  /** Reads a question from its wire form. */
  static final class Reading extends StdConverter<QuestionWire, Question> {
    @Override
    public Question convert(QuestionWire wire) {
      return wire.toQuestion();
    }
  }
}
