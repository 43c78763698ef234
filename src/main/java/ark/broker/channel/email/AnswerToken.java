package ark.broker.channel.email;

import ark.broker.channel.Hmac;
import ark.broker.channel.InboundProblem;
import ark.broker.channel.Secret;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/**
 * What an emailed answer link lets its holder do: answer one question, as one person, with one option (or with
 * text they type, when {@code option} is -1), until it expires. As a string it is
 * {@code <base64url JSON>.<hex HMAC-SHA256>}, keyed with {@code channels.email.linkSecret}; nothing in it
 * counts before the signature is checked. Single use needs no memory of its own: a question answered is final,
 * and the page refuses any link for a question that is no longer pending.
 *
 * @param identity the person the link was mailed to; the answer is theirs
 * @param option the index of the option it answers with, or -1 for a typed answer
 */
record AnswerToken(String questionId, String identity, int option, Instant expiresAt) {
  static final int FREE_TEXT = -1;
  /** Longer than any token this broker makes (ids and identities are bounded): anything longer is not one. */
  private static final int MAX_LENGTH = 4096;
  /** Keeps these signatures from being valid as anything else the same key might ever sign. */
  private static final byte[] PURPOSE = "ark-broker email answer link v1\n".getBytes(StandardCharsets.UTF_8);

  String sign(Secret key) {
    String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(new JsonObject()
        .put("q", questionId).put("u", identity).put("o", option).put("e", expiresAt.getEpochSecond())
        .encode().getBytes(StandardCharsets.UTF_8));
    return payload + "." + signature(key, payload);
  }

  /**
   * The token a link carries, if its signature holds and it has not expired.
   *
   * @throws InboundProblem 403 for a token this broker did not sign (or someone changed), 410 for an expired one
   */
  static AnswerToken verify(String token, Secret key, Instant now) {
    int dot = token == null || token.length() > MAX_LENGTH ? -1 : token.indexOf('.');
    if (dot < 0 || !Hmac.sameSignature(signature(key, token.substring(0, dot)), token.substring(dot + 1))) {
      throw new InboundProblem(403, "this answer link is not valid");
    }
    AnswerToken parsed;
    try {
      JsonObject fields = new JsonObject(new String(Base64.getUrlDecoder().decode(token.substring(0, dot)), StandardCharsets.UTF_8));
      parsed = new AnswerToken(fields.getString("q"), fields.getString("u"), fields.getInteger("o"),
          Instant.ofEpochSecond(fields.getLong("e")));
    } catch (DecodeException | IllegalArgumentException | ClassCastException | NullPointerException e) {
      // Signed by this broker but unreadable: only a different version of it could have made it.
      throw new InboundProblem(403, "this answer link is not valid");
    }
    if (!now.isBefore(parsed.expiresAt)) {
      throw new InboundProblem(410, "this answer link expired at " + parsed.expiresAt);
    }
    return parsed;
  }

  private static String signature(Secret key, String payload) {
    return Hmac.sha256Hex(key, PURPOSE, payload.getBytes(StandardCharsets.UTF_8));
  }
}
