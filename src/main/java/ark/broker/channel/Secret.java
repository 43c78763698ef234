package ark.broker.channel;

/** A token or signing key from the configuration; it prints as a placeholder, so it cannot end up in a log line. */
final class Secret {
  private final String value;

  Secret(String value) {
    this.value = value == null ? "" : value;
  }

  String reveal() {
    return value;
  }

  boolean isEmpty() {
    return value.isEmpty();
  }

  @Override
  public String toString() {
    return "[secret]";
  }
}
