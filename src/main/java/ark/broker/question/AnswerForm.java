package ark.broker.question;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * How a question is answered: free text or one of its options (a plain question), the fields of a form
 * ({@code responseSchema}), or a decision (an approval, which may ask for a reason and offer arguments to edit).
 *
 * @param arguments what an approval approves (a tool call's arguments), which the approver may edit; or null
 */
public record AnswerForm(QuestionKind kind, ResponseSchema responseSchema, boolean reasonRequired, ObjectNode arguments) {
  public AnswerForm {
    // Records written before questions had kinds are plain questions.
    kind = kind == null ? QuestionKind.QUESTION : kind;
  }
}
