package ark.broker.question;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What an asker wants to ask, already checked: every instance is valid, whichever surface made it.
 * Expiry is either absolute ({@code expiresAt}) or relative ({@code ttlSeconds}, counted from creation).
 */
public record NewQuestion(
    String sender,
    String recipient,
    List<String> channels,
    String content,
    String context,
    List<String> options,
    Priority priority,
    boolean blocking,
    QuestionKind kind,
    ResponseSchema responseSchema,
    boolean reasonRequired,
    ObjectNode arguments,
    Instant expiresAt,
    Long ttlSeconds,
    Escalation escalation,
    QueryRef query,
    String toolCallId,
    String idempotencyKey) {

  private static final Pattern CHANNEL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:#/-]{0,99}");
  private static final Pattern KEY = Pattern.compile("[\\x21-\\x7E]{1," + Limits.SHORT_TEXT + "}");

  public NewQuestion {
    ArkUri.require("recipient", recipient);
    if (sender != null) {
      ArkUri.require("sender", sender);
    }
    content = requireText("content", content, Limits.TEXT, true);
    context = requireText("context", context, Limits.TEXT, false);
    channels = channels == null ? List.of() : List.copyOf(channels);
    if (channels.size() > Limits.CHANNELS) {
      throw new InvalidQuestionException("channels may name at most " + Limits.CHANNELS + " channels");
    }
    for (String channel : channels) {
      if (channel == null || !CHANNEL.matcher(channel).matches()) {
        throw new InvalidQuestionException("channels must be names such as \"slack\" or \"github\", not '" + channel + "'");
      }
    }
    if (options != null) {
      options = List.copyOf(options);
      if (options.isEmpty() || options.size() > Limits.OPTIONS) {
        throw new InvalidQuestionException("options must list between 1 and " + Limits.OPTIONS + " answers");
      }
      for (String option : options) {
        requireText("each option", option, Limits.SHORT_TEXT, true);
      }
      if (new HashSet<>(options).size() != options.size()) {
        throw new InvalidQuestionException("options must not repeat an answer");
      }
    }
    priority = priority == null ? Priority.MEDIUM : priority;
    kind = kind == null ? QuestionKind.QUESTION : kind;
    if (kind == QuestionKind.APPROVAL && (options != null || responseSchema != null)) {
      throw new InvalidQuestionException("an approval is answered approved or rejected: leave out options and responseSchema");
    }
    if (kind != QuestionKind.APPROVAL && (reasonRequired || arguments != null)) {
      throw new InvalidQuestionException("reasonRequired and arguments belong to kind approval");
    }
    if (options != null && responseSchema != null) {
      throw new InvalidQuestionException("give options or a responseSchema, not both (a choice is a responseSchema field with an enum)");
    }
    if (arguments != null) {
      if (arguments.toString().length() > Limits.TEXT) {
        throw new InvalidQuestionException("arguments is longer than " + Limits.TEXT + " characters as JSON");
      }
      arguments = arguments.deepCopy();
    }
    if (expiresAt != null && ttlSeconds != null) {
      throw new InvalidQuestionException("give either expiresAt or ttlSeconds, not both");
    }
    if (ttlSeconds != null && (ttlSeconds < 1 || ttlSeconds > Limits.MAX_TTL_SECONDS)) {
      throw new InvalidQuestionException("ttlSeconds must be between 1 and " + Limits.MAX_TTL_SECONDS);
    }
    if (toolCallId != null && !KEY.matcher(toolCallId).matches()) {
      throw new InvalidQuestionException("toolCallId must be 1 to " + Limits.SHORT_TEXT + " visible ASCII characters");
    }
    if (idempotencyKey != null && !KEY.matcher(idempotencyKey).matches()) {
      throw new InvalidQuestionException("idempotencyKey must be 1 to " + Limits.SHORT_TEXT + " visible ASCII characters");
    }
  }

  /** The same request, sent by {@code name}. */
  public NewQuestion sentBy(String name) {
    return new NewQuestion(name, recipient, channels, content, context, options, priority, blocking, kind,
        responseSchema, reasonRequired, arguments, expiresAt, ttlSeconds, escalation, query, toolCallId, idempotencyKey);
  }

  /** The same request, with the escalation a rule gives it unless it brings its own. */
  public NewQuestion escalatedByDefault(Escalation byRule) {
    return escalation != null || byRule == null ? this : new NewQuestion(sender, recipient, channels, content, context,
        options, priority, blocking, kind, responseSchema, reasonRequired, arguments, expiresAt, ttlSeconds, byRule, query,
        toolCallId, idempotencyKey);
  }

  /** The pending question this request creates under {@code id} (see {@link QuestionIds#forRequest}). */
  public Question toQuestion(String id, Instant now) {
    Instant expiry = ttlSeconds != null ? now.plusSeconds(ttlSeconds) : expiresAt;
    if (expiry != null && !expiry.isAfter(now)) {
      throw new InvalidQuestionException("expiresAt must be in the future");
    }
    if (escalation != null && escalation.onTimeout() != null && expiry == null) {
      throw new InvalidQuestionException("escalation.onTimeout answers the question when it times out: give it expiresAt or ttlSeconds");
    }
    Question question = new Question(id, asked(), form(), FollowUps.planned(expiry, escalation), Outcome.PENDING,
        new Origin(query, toolCallId, idempotencyKey), now, now, List.of(), List.of(), 0);
    if (escalation != null && escalation.onTimeout() != null) {
      try {
        question.answer(escalation.timeoutReply(), null, now);
      } catch (InvalidQuestionException unfit) {
        throw new InvalidQuestionException("escalation.onTimeout does not answer this question: " + unfit.getMessage());
      }
    }
    return question;
  }

  /**
   * Whether {@code existing}, the question this request's id names, was asked by this same request. A replay
   * may differ only in expiry (a relative ttl moves with time); anything else means the key was reused for a
   * different question, which the caller must hear about instead of getting the old one back.
   */
  public boolean isSameRequestAs(Question existing) {
    return asked().equals(existing.asked()) && form().equals(existing.form())
        && Objects.equals(escalation, existing.followUps().escalation())
        && Objects.equals(query, existing.origin().query())
        && Objects.equals(toolCallId, existing.origin().toolCallId());
  }

  /** What the request asks, as the question it creates keeps it. */
  public Asked asked() {
    return new Asked(sender, recipient, channels, content, context, options, priority, blocking);
  }

  /** How the question it creates is answered. */
  public AnswerForm form() {
    return new AnswerForm(kind, responseSchema, reasonRequired, arguments);
  }

  private static String requireText(String field, String value, int max, boolean required) {
    if (value == null) {
      if (required) {
        throw new InvalidQuestionException(field + " is required");
      }
      return null;
    }
    if (required && value.isBlank()) {
      throw new InvalidQuestionException(field + " must not be empty");
    }
    if (value.length() > max) {
      throw new InvalidQuestionException(field + " is longer than " + max + " characters");
    }
    return value;
  }
}
