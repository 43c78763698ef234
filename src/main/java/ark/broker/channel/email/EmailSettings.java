package ark.broker.channel.email;

import ark.broker.channel.ApiClient;
import ark.broker.channel.Secret;
import io.vertx.core.json.JsonObject;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Settings of the email channel: the SMTP server it sends through, who the mail is from, the broker's address
 * as people's browsers reach it (for the answer links) and the key that signs those links.
 *
 * @param username empty for a server that takes mail without logging in
 * @param password null when {@code username} is empty
 * @param publicBaseUrl the broker's REST surface as people reach it, without a trailing slash
 * @param caFile PEM certificates the SMTP server's certificate must chain to, or null for the JVM's trusted CAs
 */
public record EmailSettings(String host, int port, TlsMode tls, String username, Secret password, String from,
                            String publicBaseUrl, Secret linkSecret, Duration linkLifetime, long intervalMillis, Path caFile) {
  /** Short keys make answer links that anyone who saw a few could forge; 32 characters is 256 bits of hex or 192 of base64. */
  static final int MIN_LINK_SECRET = 32;

  /** How the connection to the SMTP server is protected. */
  public enum TlsMode {
    /** Plain connection upgraded with STARTTLS, which the server must offer (port 587). */
    STARTTLS,
    /** TLS from the first byte (port 465). */
    TLS,
    /** No TLS at all: only for a relay on the same host or network. */
    NONE;

    static TlsMode parse(String value) {
      try {
        return valueOf(value.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("channels.email.tls must be starttls, tls or none, not '" + value + "'");
      }
    }
  }

  public static EmailSettings from(JsonObject email) {
    String host = email.getString("host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("channels.email.host must be set when the channel is enabled");
    }
    int port = email.getInteger("port");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("channels.email.port must be between 1 and 65535, not " + port);
    }
    String from = email.getString("from");
    if (!from.contains("@")) {
      throw new IllegalArgumentException("channels.email.from must be an email address, not '" + from + "'");
    }
    String username = email.getString("username");
    Secret linkSecret = Secret.required(email, "channels.email.linkSecret");
    if (linkSecret.reveal().length() < MIN_LINK_SECRET) {
      throw new IllegalArgumentException("channels.email.linkSecret must be at least " + MIN_LINK_SECRET + " characters");
    }
    long lifetimeHours = email.getLong("linkLifetimeHours");
    if (lifetimeHours < 1) {
      throw new IllegalArgumentException("channels.email.linkLifetimeHours must be at least 1, not " + lifetimeHours);
    }
    return new EmailSettings(
        host,
        port,
        TlsMode.parse(email.getString("tls")),
        username,
        username.isEmpty() ? null : Secret.required(email, "channels.email.password"),
        from,
        ApiClient.baseUrl(email, "channels.email.publicBaseUrl"),
        linkSecret,
        Duration.ofHours(lifetimeHours),
        email.getLong("intervalMillis"),
        email.getString("caFile").isBlank() ? null : Path.of(email.getString("caFile")));
  }
}
