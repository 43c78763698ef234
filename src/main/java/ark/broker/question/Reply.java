package ark.broker.question;

import com.fasterxml.jackson.databind.JsonNode;

/** What a person sends to answer a question, before the question checks it. */
public sealed interface Reply {

  /** A plain answer: free text, or one of the question's options. */
  record Text(String response) implements Reply {
  }

  /** The fields of a question's form (its responseSchema), unchecked. */
  record Form(JsonNode answer) implements Reply {
  }

  /**
   * A decision on an approval question.
   *
   * @param reason    or null
   * @param arguments edited arguments, only where the question offers its arguments for editing; or null
   */
  record Verdict(Decision.Action action, String reason, JsonNode arguments) implements Reply {
  }
}
