package ark.broker.channel;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HMAC-SHA256, the scheme Slack, GitHub and the broker's own webhook all sign with. */
public final class Hmac {
  private Hmac() {
  }

  /** Lower-case hex of HMAC-SHA256 over the parts, in order, as one message. */
  public static String sha256Hex(Secret key, byte[]... parts) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key.reveal().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      for (byte[] part : parts) {
        mac.update(part);
      }
      return HexFormat.of().formatHex(mac.doFinal());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }

  /** Compares in time that does not depend on where the strings differ, so a forger learns nothing from timing. */
  public static boolean sameSignature(String expected, String given) {
    return given != null && MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
  }
}
