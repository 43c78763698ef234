package ark.broker.http;

import ark.broker.testing.Chromium;
import ark.broker.testing.NodeDriven;
import ark.broker.testing.NodeScript;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's "Sign in with OIDC", in a real Chromium against a real OIDC server on loopback
 * (mock-oauth2-server, which signs people in without a form): the authorization code with PKCE, and back.
 */
@NodeDriven
class DashboardOidcSignInBrowserTest {
  private static final String ISSUER_ID = "ark";
  private static final String AUDIENCE = "ark-broker";
  private static final String CLIENT_ID = "ark-dashboard";

  @TempDir
  static Path dir;
  static MockOAuth2Server issuer;
  static TestBroker broker;
  static Path chromium;

  @BeforeAll
  static void start() throws Exception {
    chromium = Chromium.assumeInstalled();
    issuer = new MockOAuth2Server();
    issuer.start(InetAddress.getLoopbackAddress(), 0);
    JsonObject oidc = new JsonObject()
        .put("issuer", issuer.issuerUrl(ISSUER_ID).toString())
        .put("audience", AUDIENCE)
        .put("jwksUrl", issuer.jwksUrl(ISSUER_ID).toString())
        .put("dashboardClientId", CLIENT_ID)
        .put("dashboardScopes", new JsonArray().add("openid").add("profile"));
    broker = TestBroker.start(dir.resolve("data"),
        new JsonObject().put("auth", new JsonObject().put("mode", "required").put("oidc", oidc)));
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
    if (issuer != null) {
      issuer.shutdown();
    }
  }

  @Test
  void whatThePageNeedsToSignInIsPublicAndThePageTalksOnlyToTheBrokerAndTheIssuer() throws Exception {
    TestBroker.Response config = broker.get(Dashboard.CONFIG_PATH);

    assertThat(config.status()).isEqualTo(200);
    assertThat(config.json().getJsonObject("oidc")).isEqualTo(new JsonObject()
        .put("issuer", issuer.issuerUrl(ISSUER_ID).toString()).put("clientId", CLIENT_ID)
        .put("scopes", new JsonArray().add("openid").add("profile")));
    URI issuerUrl = issuer.issuerUrl(ISSUER_ID).uri();
    assertThat(broker.get("/").header("Content-Security-Policy"))
        .contains("script-src 'self';")
        .contains("connect-src 'self' http://" + issuerUrl.getHost() + ":" + issuerUrl.getPort() + ";")
        .contains("frame-ancestors 'none'");
  }

  @Test
  void signingInAtTheIssuerShowsWhoTheTokenSays() throws Exception {
    // The next tokens the issuer hands out: carol's for another service, then carol's for this broker.
    issuer.enqueueCallback(carol("another-service"));
    issuer.enqueueCallback(carol(AUDIENCE));

    NodeScript.Run run = NodeScript.run(120, "dashboard-signin.mjs", "oidc", broker.base.toString(), chromium.toString());
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    JsonObject seen = new JsonObject(run.lastLine());

    assertThat(seen.getBoolean("oidcOffered")).isTrue();
    assertThat(seen.getString("wrongAudienceError"))
        .isEqualTo("The broker did not accept the token from the identity provider: the token is for another audience");
    assertThat(seen.getBoolean("keptWrongAudienceToken")).isFalse();
    assertThat(seen.getString("name")).isEqualTo("ark://users/carol");
    assertThat(seen.getString("identityDetail")).isEqualTo("human · ark://teams/reviewers");
    assertThat(seen.getString("url")).as("the code is gone from the address").isEqualTo(broker.base + "/");
    assertThat(seen.getBoolean("keptToken")).isTrue();
    assertThat(seen.getJsonArray("blockedByContentSecurityPolicy")).isEmpty();
    List<RecordedRequest> authorizations = new ArrayList<>();
    List<RecordedRequest> tokenRequests = new ArrayList<>();
    while (authorizations.size() < 2 || tokenRequests.size() < 2) {
      // Each sign-in has already reached the issuer: these return at once.
      RecordedRequest request = issuer.takeRequest(10, TimeUnit.SECONDS);
      String path = request.getRequestUrl().encodedPath();
      if (path.endsWith("/authorize")) {
        authorizations.add(request);
      } else if (path.endsWith("/token")) {
        tokenRequests.add(request);
      }
    }
    assertThat(authorizations).allSatisfy(authorize -> {
      assertThat(authorize.getRequestUrl().queryParameter("code_challenge_method")).isEqualTo("S256");
      assertThat(authorize.getRequestUrl().queryParameter("client_id")).isEqualTo(CLIENT_ID);
      assertThat(authorize.getRequestUrl().queryParameter("scope")).isEqualTo("openid profile");
    });
    assertThat(tokenRequests).allSatisfy(token -> assertThat(token.getBody().readUtf8())
        .contains("grant_type=authorization_code").contains("code_verifier=").contains("client_id=" + CLIENT_ID));
  }

  private static DefaultOAuth2TokenCallback carol(String audience) {
    return new DefaultOAuth2TokenCallback(ISSUER_ID, "carol", "JWT", List.of(audience),
        Map.of("groups", List.of("reviewers")), 3600);
  }
}
