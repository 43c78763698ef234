package ark.broker.channel;

/**
 * {@code channels.onlyRecipientsMayAnswer}: whether an answer given in a channel must come from someone the
 * question is for. {@code auto} follows authentication, because a broker that checks who calls its API should not
 * let anyone who can click in Slack answer for everyone.
 */
public enum RecipientsOnly {
  /** Yes when authentication is on, no when the broker runs open. */
  AUTO,
  ON,
  OFF;

  /** @throws IllegalArgumentException for anything but {@code auto}, {@code true}, {@code false} (or those strings) */
  static RecipientsOnly parse(Object value) {
    String text = String.valueOf(value);
    return switch (text) {
      case "auto" -> AUTO;
      case "true" -> ON;
      case "false" -> OFF;
      default -> throw new IllegalArgumentException(
          "channels.onlyRecipientsMayAnswer must be auto, true or false, not '" + text + "'");
    };
  }

  /** Whether only recipients may answer on a broker with authentication {@code authOn}. */
  boolean applies(boolean authOn) {
    return this == ON || this == AUTO && authOn;
  }
}
