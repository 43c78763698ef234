package ark.broker.testing;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.vertx.core.json.JsonObject;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import no.nav.security.mock.oauth2.token.KeyProvider;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * A real OIDC / OAuth 2 server on loopback (mock-oauth2-server) with an RSA key of the test's own, so a test can
 * both have it issue tokens and sign tokens it would never issue (expired ones, forged ones).
 */
public final class LoopbackIssuer implements AutoCloseable {
  /** The issuer id, which is also the kid of its key. */
  public static final String ID = "ark";

  private final RSAKey key;
  private final MockOAuth2Server server;

  private LoopbackIssuer(RSAKey key, MockOAuth2Server server) {
    this.key = key;
    this.server = server;
  }

  public static LoopbackIssuer start() throws Exception {
    RSAKey key = new RSAKeyGenerator(2048).keyID(ID).generate();
    MockOAuth2Server server = new MockOAuth2Server(new OAuth2Config(false, null, null, false,
        new OAuth2TokenProvider(new KeyProvider(List.of(key)))));
    server.start(InetAddress.getLoopbackAddress(), 0);
    return new LoopbackIssuer(key, server);
  }

  public String issuer() {
    return server.issuerUrl(ID).toString();
  }

  /** The broker's {@code auth.oidc} section for tokens of this issuer meant for {@code audience}. */
  public JsonObject oidcConfig(String audience) {
    return new JsonObject().put("issuer", issuer()).put("audience", audience).put("jwksUrl", server.jwksUrl(ID).toString());
  }

  /** A token the issuer issues to {@code subject} for {@code audience}, valid for an hour. */
  public String token(String subject, String audience, Map<String, Object> claims) {
    return server.issueToken(ID, "client", new DefaultOAuth2TokenCallback(ID, subject, "JWT", List.of(audience),
        claims, 3600)).serialize();
  }

  /** A token with exactly these claims, signed with the issuer's key. */
  public String signed(JWTClaimsSet claims) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).type(JOSEObjectType.JWT)
        .build(), claims);
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  @Override
  public void close() {
    server.shutdown();
  }
}
