package ark.broker.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.ConfigurableJWTProcessor;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.MalformedURLException;
import java.net.URI;
import java.text.ParseException;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * OIDC / OAuth 2.1 access tokens (JWTs) from {@code auth.oidc.issuer}, checked with nimbus-jose-jwt:
 *
 * <ul>
 *   <li>signature by a key from {@code auth.oidc.jwksUrl}; keys are cached (5 minutes) and fetched again when a
 *       token names an unknown {@code kid} (the issuer rotated its keys), at most twice per 30 seconds so forged
 *       kids cannot make the broker hammer the issuer;</li>
 *   <li>asymmetric algorithms only (RS*, PS*, ES*): {@code alg: none} and HMAC tokens are refused, so a token
 *       "signed" with the issuer's public key as an HMAC secret (algorithm confusion) never verifies;</li>
 *   <li>{@code typ} absent, {@code JWT} or {@code at+jwt} (RFC 9068);</li>
 *   <li>the claims by {@link AccessTokenClaims}, the scopes by {@link RequiredScopes}, then mapped by
 *       {@link OidcClaimMapping}.</li>
 * </ul>
 *
 * <p>Blocking: a key fetch is an HTTP request, so call it on a worker thread.
 */
final class OidcAuthenticator implements Authenticator {
  private static final Logger LOG = LoggerFactory.getLogger(OidcAuthenticator.class);
  static final Set<JWSAlgorithm> ASYMMETRIC = Set.of(
      JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
      JWSAlgorithm.PS256, JWSAlgorithm.PS384, JWSAlgorithm.PS512,
      JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512);
  private static final int FETCH_TIMEOUT_MILLIS = 5000;
  private static final int JWKS_SIZE_LIMIT = 512 * 1024;

  private final OidcSettings settings;
  private final ConfigurableJWTProcessor<SecurityContext> processor;
  private final OidcClaimMapping mapping;

  /** @param staticName whether the tokens file has a token of that principal name: no OIDC token may become it */
  OidcAuthenticator(OidcSettings settings, Predicate<String> staticName) {
    this(settings, staticName, Clock.systemUTC(), JWKSourceBuilder.DEFAULT_RATE_LIMIT_MIN_INTERVAL);
  }

  /** @param refetchIntervalMillis the shortest time in which keys are fetched at most twice */
  OidcAuthenticator(OidcSettings settings, Predicate<String> staticName, Clock clock, long refetchIntervalMillis) {
    this.settings = settings;
    this.mapping = new OidcClaimMapping(settings, staticName);
    JWKSource<SecurityContext> keys;
    try {
      keys = JWKSourceBuilder.<SecurityContext>create(URI.create(settings.jwksUrl()).toURL(),
              new DefaultResourceRetriever(FETCH_TIMEOUT_MILLIS, FETCH_TIMEOUT_MILLIS, JWKS_SIZE_LIMIT))
          .cache(true)
          .rateLimited(refetchIntervalMillis)
          .build();
    } catch (MalformedURLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("auth.oidc.jwksUrl is not a URL: " + settings.jwksUrl(), e);
    }
    DefaultJWTProcessor<SecurityContext> jwt = new DefaultJWTProcessor<>();
    jwt.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(JOSEObjectType.JWT, new JOSEObjectType("at+jwt"),
        new JOSEObjectType("application/at+jwt"), null));
    jwt.setJWSKeySelector(new JWSVerificationKeySelector<>(ASYMMETRIC, keys));
    jwt.setJWTClaimsSetVerifier(new AccessTokenClaims(settings, clock));
    this.processor = jwt;
  }

  /** Empty for a token that is no JWT (three dot-separated parts), so a static token never reaches here. */
  @Override
  public Optional<Grant> authenticate(String token) {
    if (token.chars().filter(c -> c == '.').count() != 2) {
      return Optional.empty();
    }
    JWTClaimsSet claims;
    try {
      claims = processor.process(token, null);
    } catch (ParseException e) {
      throw AuthFailure.invalidToken("the token is not a well-formed JWT");
    } catch (AccessTokenClaims.Rejected e) {
      throw AuthFailure.invalidToken(e.getMessage());
    } catch (BadJOSEException e) {
      // Unsigned, another algorithm, an unknown key, a bad signature or type: one answer for all, as a forger
      // learns nothing from which.
      throw AuthFailure.invalidToken("the token's signature, key or algorithm is not accepted");
    } catch (RateLimitReachedException e) {
      throw AuthFailure.invalidToken("the token's signature, key or algorithm is not accepted");
    } catch (KeySourceException e) {
      LOG.warn("auth.oidc.jwksUrl {} could not be fetched: {}", settings.jwksUrl(), e.getMessage());
      throw AuthFailure.unavailable("the identity provider's keys cannot be fetched now");
    } catch (JOSEException e) {
      throw AuthFailure.invalidToken("the token's signature, key or algorithm is not accepted");
    }
    RequiredScopes.check(settings.requiredScopes(), claims);
    return Optional.of(mapping.grant(claims));
  }
}
