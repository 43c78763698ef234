package ark.broker.channel;

import io.vertx.core.json.JsonObject;

/** A token or signing key from the configuration; it prints as a placeholder, so it cannot end up in a log line. */
public final class Secret {
  private final String value;

  private Secret(String value) {
    this.value = value == null ? "" : value;
  }

  /** The secret at {@code path} (its last part is the key in {@code section}); an enabled channel cannot do without it. */
  public static Secret required(JsonObject section, String path) {
    Secret secret = new Secret(section.getString(path.substring(path.lastIndexOf('.') + 1)));
    if (secret.value.isEmpty()) {
      throw new IllegalArgumentException(path + " must be set when the channel is enabled");
    }
    return secret;
  }

  public String reveal() {
    return value;
  }

  @Override
  public String toString() {
    return "[secret]";
  }
}
