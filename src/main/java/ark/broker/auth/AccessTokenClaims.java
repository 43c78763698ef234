package ark.broker.auth;

import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.JWTClaimsSetVerifier;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

/**
 * The claim checks on a signature-verified access token: issuer, audience, expiry (required) and not-before,
 * each failure with its own fixed reason, so the caller learns which check failed without the token's values
 * being echoed.
 */
final class AccessTokenClaims implements JWTClaimsSetVerifier<SecurityContext> {
  private final String issuer;
  private final String audience;
  private final Duration skew;
  private final Clock clock;

  /** A refused claim, with the reason for the caller ({@code error_description}). */
  static final class Rejected extends BadJWTException {
    Rejected(String reason) {
      super(reason);
    }
  }

  AccessTokenClaims(OidcSettings settings, Clock clock) {
    this.issuer = settings.issuer();
    this.audience = settings.audience();
    this.skew = settings.clockSkew();
    this.clock = clock;
  }

  @Override
  public void verify(JWTClaimsSet claims, SecurityContext context) throws BadJWTException {
    Instant now = clock.instant();
    Date expires = claims.getExpirationTime();
    if (expires == null) {
      throw new Rejected("the token has no expiry");
    }
    if (now.isAfter(expires.toInstant().plus(skew))) {
      throw new Rejected("the token has expired");
    }
    Date notBefore = claims.getNotBeforeTime();
    if (notBefore != null && now.plus(skew).isBefore(notBefore.toInstant())) {
      throw new Rejected("the token is not valid yet");
    }
    if (!issuer.equals(claims.getIssuer())) {
      throw new Rejected("the token is from another issuer");
    }
    List<String> audiences = claims.getAudience();
    if (audiences == null || !audiences.contains(audience)) {
      throw new Rejected("the token is for another audience");
    }
  }
}
