package ark.broker.mcp.protocol;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys that sign {@link StreamToken stream tokens} (HMAC-SHA256), so that a client can resume only a stream
 * this server issued to its own session and principal. Every replica has the same keys; the first signs, and
 * every one verifies, so a new key can be put in front while tokens signed with the one before still resume.
 */
public final class StreamTokenKeys {
  /** Shorter keys would be guessable offline from the tokens a client sees. */
  public static final int MIN_LENGTH = 32;
  private static final String ALGORITHM = "HmacSHA256";
  /** Keeps these MACs apart from anything else a key might ever sign. */
  private static final byte[] PURPOSE = "ark-broker mcp stream token v1\n".getBytes(StandardCharsets.UTF_8);

  private final List<SecretKeySpec> keys;

  private StreamTokenKeys(List<SecretKeySpec> keys) {
    this.keys = List.copyOf(keys);
  }

  /**
   * @param secrets the keys, the signing one first
   * @throws IllegalArgumentException for no key, or one shorter than {@link #MIN_LENGTH} characters (never showing it)
   */
  public static StreamTokenKeys of(List<String> secrets) {
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException("no key is given");
    }
    for (int i = 0; i < secrets.size(); i++) {
      if (secrets.get(i).length() < MIN_LENGTH) {
        throw new IllegalArgumentException("key " + (i + 1) + " of " + secrets.size() + " has " + secrets.get(i).length()
            + " characters; each needs at least " + MIN_LENGTH);
      }
    }
    return new StreamTokenKeys(secrets.stream()
        .map(secret -> new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM)).toList());
  }

  /** A new random key, as text (what {@link #of} takes). */
  public static String newKey() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The MAC of {@code payload} for {@code session} and its owner, with the signing key, as base64url. */
  String sign(String payload, McpSession session) {
    return encoded(mac(keys.get(0), payload, session));
  }

  /**
   * Whether {@code mac} is, character for character, {@code payload}'s for {@code session} under any of the keys
   * (compared in constant time, and as text, so no other spelling of the same bytes passes).
   */
  boolean verifies(String payload, String mac, McpSession session) {
    byte[] given = mac.getBytes(StandardCharsets.US_ASCII);
    boolean valid = false;
    for (SecretKeySpec key : keys) {
      valid |= MessageDigest.isEqual(encoded(mac(key, payload, session)).getBytes(StandardCharsets.US_ASCII), given);
    }
    return valid;
  }

  private static String encoded(byte[] mac) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(mac);
  }

  private static byte[] mac(SecretKeySpec key, String payload, McpSession session) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      mac.update(PURPOSE);
      // Each part ends with a byte none of them contains, so no two different triples hash alike.
      for (String part : new String[] {payload, session.id(), session.owner()}) {
        mac.update(part.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) 0);
      }
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(ALGORITHM + " is part of every Java runtime", e);
    }
  }
}
