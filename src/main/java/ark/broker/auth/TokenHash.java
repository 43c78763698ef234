package ark.broker.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Static tokens are kept and compared only as SHA-256 hashes, so neither the file nor memory dumps nor logs
 * hold a usable token; the comparison takes the same time wherever the hashes differ.
 */
final class TokenHash {
  private static final Pattern HEX_SHA256 = Pattern.compile("[0-9a-fA-F]{64}");

  private TokenHash() {
  }

  static byte[] of(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** The hash written as hex, as in the tokens file; {@code null} if it is not 64 hex digits. */
  static byte[] parseHex(String hex) {
    return hex != null && HEX_SHA256.matcher(hex).matches() ? HexFormat.of().parseHex(hex.toLowerCase(Locale.ROOT)) : null;
  }

  /** The hex form the tokens file wants, for tools and tests that make one. */
  static String hex(String token) {
    return HexFormat.of().formatHex(of(token));
  }

  static boolean same(byte[] a, byte[] b) {
    return MessageDigest.isEqual(a, b);
  }
}
