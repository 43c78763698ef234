package ark.broker.auth;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import no.nav.security.mock.oauth2.token.KeyProvider;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Access tokens from a real OIDC server on loopback (mock-oauth2-server): its discovery-published JWKS, its tokens. */
class OidcAuthenticatorTest {
  private static final String ISSUER_ID = "ark";
  private static final String AUDIENCE = "ark-broker";

  private RSAKey key;
  private KeyProvider keys;
  private MockOAuth2Server server;
  private OidcSettings settings;

  @BeforeEach
  void startIssuer() throws Exception {
    // The server names its key after the issuer id.
    key = new RSAKeyGenerator(2048).keyID(ISSUER_ID).generate();
    keys = new KeyProvider(List.of(key));
    server = new MockOAuth2Server(new OAuth2Config(false, null, null, false, new OAuth2TokenProvider(keys)));
    server.start(InetAddress.getLoopbackAddress(), 0);
    settings = settings("groups", "", List.of());
  }

  @AfterEach
  void stopIssuer() {
    server.shutdown();
  }

  @Test
  void aTokenFromTheIssuerIsAcceptedAndItsClaimsMapped() {
    String token = issue("john.doe", AUDIENCE, Map.of("groups", List.of("ops", "/dev", "not a team")));

    Grant grant = withoutTokensFile(settings).authenticate(token).orElseThrow();

    assertThat(grant.principal()).isEqualTo(new Principal(PrincipalKind.HUMAN, "ark://users/john.doe",
        List.of("ark://teams/ops", "ark://teams/dev"), AuthMethod.OIDC));
    assertThat(grant.mayActFor().isEmpty()).isTrue();
  }

  @Test
  void membersOfAnAdminTeamAreAdmins() {
    OidcAuthenticator oidc = withoutTokensFile(settings("groups", "", List.of("ark://teams/ops")));

    assertThat(oidc.authenticate(issue("root", AUDIENCE, Map.of("groups", List.of("ops")))).orElseThrow().principal())
        .isEqualTo(new Principal(PrincipalKind.ADMIN, "ark://users/root", List.of("ark://teams/ops"), AuthMethod.OIDC));
    assertThat(oidc.authenticate(issue("jane", AUDIENCE, Map.of("groups", List.of("dev")))).orElseThrow().principal().kind())
        .isEqualTo(PrincipalKind.HUMAN);
  }

  @Test
  void theKindClaimMakesAgentsAndServicesButNeverAdmins() {
    OidcAuthenticator oidc = withoutTokensFile(settings("realm_access.roles", "ark_kind", List.of()));

    Principal agent = oidc.authenticate(issue("reviewer", AUDIENCE, Map.of("ark_kind", "agent",
        "realm_access", Map.of("roles", List.of("reviewers"))))).orElseThrow().principal();
    Principal service = oidc.authenticate(issue("executor", AUDIENCE, Map.of("ark_kind", "service")))
        .orElseThrow().principal();

    assertThat(agent).isEqualTo(new Principal(PrincipalKind.AGENT, "ark://agents/reviewer",
        List.of("ark://teams/reviewers"), AuthMethod.OIDC));
    assertThat(service.kind()).isEqualTo(PrincipalKind.SERVICE);
    assertThat(service.name()).isEqualTo("ark://agents/executor");
    assertThat(oidc.authenticate(issue("jane", AUDIENCE, Map.of())).orElseThrow().principal().kind())
        .isEqualTo(PrincipalKind.HUMAN);
    assertThat(failure(oidc, issue("mallory", AUDIENCE, Map.of("ark_kind", "admin"))))
        .isEqualTo("401 the token's ark_kind claim must be agent, service or human");
  }

  @Test
  void keysAreCachedAndARotatedKeyIsFetchedWhenItsKidIsUnknown() throws Exception {
    OidcAuthenticator oidc = withoutTokensFile(settings);
    assertThat(oidc.authenticate(issue("john", AUDIENCE, Map.of()))).isPresent();
    assertThat(oidc.authenticate(issue("jane", AUDIENCE, Map.of()))).isPresent();
    assertThat(jwksFetches()).as("keys fetched once, then cached").isEqualTo(1);

    // The issuer rotates: a new key under a new kid, the old one withdrawn.
    RSAKey rotated = new RSAKeyGenerator(2048).keyID("key-2").generate();
    rotate(rotated);
    String newToken = issue("john", AUDIENCE, Map.of());
    assertThat(SignedJWT.parse(newToken).getHeader().getKeyID()).isEqualTo("key-2");

    assertThat(oidc.authenticate(newToken).orElseThrow().principal().name()).isEqualTo("ark://users/john");
    assertThat(jwksFetches()).as("fetched again for the unknown kid").isEqualTo(1);
    assertThat(failure(oidc, signed(key, claims().build())))
        .as("a token of the withdrawn key").startsWith("401 the token's signature");
  }

  @Test
  void expiredAndNotYetValidTokensAreRefusedBeyondTheClockSkew() throws Exception {
    OidcAuthenticator oidc = withoutTokensFile(settings);
    Instant now = Instant.now();

    assertThat(failure(oidc, signed(key, claims().expirationTime(Date.from(now.minusSeconds(120))).build())))
        .isEqualTo("401 the token has expired");
    assertThat(oidc.authenticate(signed(key, claims().expirationTime(Date.from(now.minusSeconds(10))).build())))
        .as("within the 60 s skew").isPresent();
    assertThat(failure(oidc, signed(key, claims().notBeforeTime(Date.from(now.plusSeconds(300))).build())))
        .isEqualTo("401 the token is not valid yet");
    assertThat(failure(oidc, signed(key, claims().expirationTime(null).build())))
        .isEqualTo("401 the token has no expiry");
    OidcAuthenticator later = new OidcAuthenticator(settings, OidcAuthenticatorTest::isStaticTokenName,
        Clock.offset(Clock.systemUTC(), Duration.ofHours(2)), 30_000);
    assertThat(failure(later, issue("john", AUDIENCE, Map.of()))).as("the issuer's own token, an hour past its exp")
        .isEqualTo("401 the token has expired");
  }

  @Test
  void tokensOfAnotherIssuerOrAudienceAreRefused() throws Exception {
    OidcAuthenticator oidc = withoutTokensFile(settings);

    assertThat(failure(oidc, issue("john", "another-service", Map.of()))).isEqualTo("401 the token is for another audience");
    assertThat(failure(oidc, signed(key, claims().issuer("http://127.0.0.1:1/elsewhere").build())))
        .isEqualTo("401 the token is from another issuer");
  }

  @Test
  void unsignedTokensAreRefused() throws Exception {
    String none = new PlainJWT(claims().build()).serialize();
    // Some libraries accepted "alg":"none" with a signature part present; try both shapes.
    String noneWithSignature = none + "c2lnbmF0dXJl";

    assertThat(failure(withoutTokensFile(settings), none)).startsWith("401 the token's signature");
    assertThat(failure(withoutTokensFile(settings), noneWithSignature)).startsWith("401 ");
  }

  @Test
  void anHmacTokenKeyedWithThePublicKeyIsRefused() throws Exception {
    // Algorithm confusion: a verifier that took the RSA public key as an HMAC secret would accept this.
    byte[] publicKey = key.toRSAPublicKey().getEncoded();
    byte[] publicJwk = key.toPublicJWK().toJSONString().getBytes(StandardCharsets.UTF_8);
    OidcAuthenticator oidc = withoutTokensFile(settings);

    for (byte[] secret : List.of(publicKey, publicJwk)) {
      SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(ISSUER_ID).type(JOSEObjectType.JWT)
          .build(), claims().build());
      jwt.sign(new MACSigner(secret));
      assertThat(failure(oidc, jwt.serialize())).startsWith("401 the token's signature");
    }
  }

  @Test
  void aTamperedTokenIsRefused() throws Exception {
    String token = issue("john", AUDIENCE, Map.of());
    String[] parts = token.split("\\.");
    String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
        .replace("\"john\"", "\"root\"");
    String changedPayload = parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
        .encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
    char last = parts[2].charAt(10);
    String changedSignature = parts[0] + "." + parts[1] + "." + parts[2].substring(0, 10) + (last == 'A' ? 'B' : 'A')
        + parts[2].substring(11);
    OidcAuthenticator oidc = withoutTokensFile(settings);

    assertThat(payload).contains("\"root\"");
    assertThat(failure(oidc, changedPayload)).startsWith("401 the token's signature");
    assertThat(failure(oidc, changedSignature)).startsWith("401 the token's signature");
    assertThat(oidc.authenticate(token)).isPresent();
  }

  @Test
  void otherTokensAreNotItsBusinessAndGarbageIsRefused() {
    OidcAuthenticator oidc = withoutTokensFile(settings);

    assertThat(oidc.authenticate("static-token")).isEmpty();
    assertThat(failure(oidc, "not.a.jwt")).isEqualTo("401 the token is not a well-formed JWT");
  }

  @Test
  void aTokenWithoutTheNameClaimIsRefused() throws Exception {
    assertThat(failure(withoutTokensFile(settings), signed(key, claims().subject(null).build())))
        .isEqualTo("401 the token has no sub claim");
    assertThat(failure(withoutTokensFile(settings), signed(key, claims().subject("a b").build())))
        .isEqualTo("401 the token's sub claim makes no usable name");
  }

  @Test
  void aUserTheIssuerNamesLikeAStaticTokensPrincipalIsRefusedUnlessListedAsShared() {
    java.util.function.Predicate<String> staticNames = "ark://users/root"::equals;
    OidcSettings base = settings("groups", "", List.of());
    OidcAuthenticator oidc = new OidcAuthenticator(base, staticNames);
    OidcAuthenticator sharing = new OidcAuthenticator(new OidcSettings(base.issuer(), AUDIENCE, base.jwksUrl(), "sub",
        "groups", "", List.of(), Duration.ofSeconds(60), List.of(), List.of("ark://users/root")), staticNames);

    assertThat(failure(oidc, issue("root", AUDIENCE, Map.of())))
        .isEqualTo("401 the token's sub names a principal of this broker's own");
    assertThat(oidc.authenticate(issue("rooted", AUDIENCE, Map.of())).orElseThrow().principal().name())
        .isEqualTo("ark://users/rooted");
    assertThat(sharing.authenticate(issue("root", AUDIENCE, Map.of())).orElseThrow().principal())
        .as("listed: the same person, with what the token says of them")
        .isEqualTo(new Principal(PrincipalKind.HUMAN, "ark://users/root", List.of(), AuthMethod.OIDC));
  }

  @Test
  void anUnreachableIssuerIsUnavailableNotUnauthorized() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    OidcSettings unreachable = new OidcSettings(settings.issuer(), AUDIENCE, "http://127.0.0.1:" + closed + "/jwks",
        "sub", "groups", "", List.of(), Duration.ofSeconds(60), List.of(), List.of());

    assertThat(failure(withoutTokensFile(unreachable), issue("john", AUDIENCE, Map.of())))
        .startsWith("503 ");
  }

  @Test
  void requiredScopesAreReadFromScopeAndScpAndALackingTokenIsInsufficientScope() {
    OidcSettings base = settings("groups", "", List.of());
    OidcAuthenticator oidc = new OidcAuthenticator(new OidcSettings(base.issuer(), AUDIENCE, base.jwksUrl(), "sub",
        "groups", "", List.of(), Duration.ofSeconds(60), List.of("questions:ask", "questions:read"), List.of()),
        OidcAuthenticatorTest::isStaticTokenName);

    assertThat(oidc.authenticate(issue("john", AUDIENCE, Map.of("scope", "openid questions:read questions:ask"))))
        .isPresent();
    assertThat(oidc.authenticate(issue("john", AUDIENCE, Map.of("scp", List.of("questions:ask", "questions:read")))))
        .isPresent();
    assertThat(oidc.authenticate(issue("john", AUDIENCE, Map.of("scope", "questions:ask",
        "scp", List.of("questions:read"))))).as("granted by either claim").isPresent();
    AuthFailure lacking = refusal(oidc, issue("john", AUDIENCE, Map.of("scope", "openid questions:ask")));
    assertThat(lacking.status()).isEqualTo(403);
    assertThat(lacking.error()).isEqualTo("insufficient_scope");
    assertThat(lacking.challenge("https://broker/.well-known/oauth-protected-resource/mcp")).isEqualTo(
        "Bearer error=\"insufficient_scope\", scope=\"questions:ask questions:read\", "
            + "resource_metadata=\"https://broker/.well-known/oauth-protected-resource/mcp\", "
            + "error_description=\"the token lacks the scope questions:read\"");
    assertThat(refusal(oidc, issue("john", AUDIENCE, Map.of())).status()).as("no scope claim at all").isEqualTo(403);
    assertThat(refusal(oidc, issue("john", "other", Map.of("scope", "questions:ask questions:read"))).status())
        .as("an invalid token is still 401").isEqualTo(401);
  }

  private static AuthFailure refusal(OidcAuthenticator oidc, String token) {
    try {
      oidc.authenticate(token);
    } catch (AuthFailure failure) {
      return failure;
    }
    throw new AssertionError("accepted: " + token);
  }

  private OidcSettings settings(String teamsClaim, String kindClaim, List<String> adminTeams) {
    return new OidcSettings(server.issuerUrl(ISSUER_ID).toString(), AUDIENCE, server.jwksUrl(ISSUER_ID).toString(),
        "sub", teamsClaim, kindClaim, adminTeams, Duration.ofSeconds(60), List.of(), List.of());
  }

  /**
   * Makes the server sign with, and publish, only {@code next}. mock-oauth2-server has no rotation of its own and
   * keeps one key per issuer id in a private map, so the test replaces that entry.
   */
  @SuppressWarnings("unchecked")
  private void rotate(RSAKey next) throws Exception {
    Field field = KeyProvider.class.getDeclaredField("signingKeys");
    field.setAccessible(true);
    ((Map<String, JWK>) field.get(keys)).put(ISSUER_ID, next);
  }

  private String issue(String subject, String audience, Map<String, Object> claims) {
    return server.issueToken(ISSUER_ID, "client", new DefaultOAuth2TokenCallback(ISSUER_ID, subject, "JWT",
        List.of(audience), claims, 3600)).serialize();
  }

  /** Valid claims for this issuer and audience; tests change one. */
  private JWTClaimsSet.Builder claims() {
    Instant now = Instant.now();
    return new JWTClaimsSet.Builder().issuer(server.issuerUrl(ISSUER_ID).toString()).audience(AUDIENCE)
        .subject("john").issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(600)));
  }

  private static String signed(RSAKey signingKey, JWTClaimsSet claims) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(signingKey.getKeyID())
        .type(JOSEObjectType.JWT).build(), claims);
    jwt.sign(new RSASSASigner(signingKey));
    return jwt.serialize();
  }

  /** "status message" of the refusal; fails the test if the token is accepted. */
  private static String failure(OidcAuthenticator oidc, String token) {
    try {
      oidc.authenticate(token);
    } catch (AuthFailure failure) {
      assertThat(failure.getMessage()).doesNotContain(token);
      return failure.status() + " " + failure.getMessage();
    }
    throw new AssertionError("accepted: " + token);
  }

  /** The key set requests the issuer has had since the last call. */
  private int jwksFetches() {
    int fetches = 0;
    while (true) {
      try {
        if (server.takeRequest(200, TimeUnit.MILLISECONDS).getPath().endsWith("/jwks")) {
          fetches++;
        }
      } catch (RuntimeException none) {
        return fetches;
      }
    }
  }

  private static OidcAuthenticator withoutTokensFile(OidcSettings settings) {
    return new OidcAuthenticator(settings, OidcAuthenticatorTest::isStaticTokenName);
  }

  /** A broker without a tokens file: no name is a static token's. */
  private static boolean isStaticTokenName(String name) {
    return false;
  }
}
