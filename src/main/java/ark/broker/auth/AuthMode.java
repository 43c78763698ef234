package ark.broker.auth;

import java.util.Locale;

/** {@code auth.mode}: how strictly the broker insists on authentication (see {@link AuthStartup}). */
public enum AuthMode {
  /** Authenticate when auth is configured; without it, run open on loopback only and refuse any other address. */
  AUTO,
  /** Refuse to start without configured auth. */
  REQUIRED,
  /** Run open (everyone is {@link Principal#ANONYMOUS}), wherever it binds; configured auth is ignored. */
  NONE;

  static AuthMode parse(String text) {
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("auth.mode must be auto, required or none, not '" + text + "'", e);
    }
  }
}
