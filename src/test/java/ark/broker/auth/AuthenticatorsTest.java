package ark.broker.auth;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static ark.broker.auth.TokensFixture.entry;
import static ark.broker.auth.TokensFixture.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The entry point: header in, actor or failure out; impersonation; the open broker. */
class AuthenticatorsTest {
  private static final String AGENT = tokenOf("agent");
  private static final String EXECUTOR = tokenOf("executor");
  private static final String HUMAN = tokenOf("human");
  private static final String ADMIN = tokenOf("admin");

  @TempDir
  Path dir;
  private Authenticators auth;

  @BeforeEach
  void setUp() throws Exception {
    Path file = dir.resolve("tokens.json");
    write(file,
        entry(AGENT, "agent", "ark://agents/reviewer"),
        entry(EXECUTOR, "service", "ark://agents/executor", List.of(), List.of("ark://agents/team-a-*", "ark://agents/solo")),
        entry(HUMAN, "human", "ark://users/john", List.of("ark://teams/ops"), List.of()),
        entry(ADMIN, "admin", "ark://users/root"));
    auth = Authenticators.configured(settings(file.toString(), "auto"));
  }

  @Test
  void aKnownTokenGivesItsPrincipalActingAsItself() {
    Actor actor = auth.authenticate("Bearer " + HUMAN, null);

    assertThat(actor).isEqualTo(Actor.as(new Principal(PrincipalKind.HUMAN, "ark://users/john", List.of("ark://teams/ops"),
        AuthMethod.TOKEN)));
    assertThat(actor.impersonating()).isFalse();
    assertThat(auth.authenticate("bearer   " + AGENT + " ", "").principal().name()).as("scheme case, spaces")
        .isEqualTo("ark://agents/reviewer");
    assertThat(auth.isOpen()).isFalse();
  }

  @Test
  void noTokenOrAnUnknownOneIs401WithAChallengeThatNeverEchoesIt() {
    AuthFailure missing = failure(null, null);
    assertThat(missing.status()).isEqualTo(401);
    assertThat(missing.error()).isNull();
    assertThat(missing.challenge("https://broker/.well-known/oauth-protected-resource"))
        .isEqualTo("Bearer resource_metadata=\"https://broker/.well-known/oauth-protected-resource\"");

    AuthFailure unknown = failure("Bearer wrong-secret-value", null);
    assertThat(unknown.status()).isEqualTo(401);
    assertThat(unknown.challenge(null))
        .isEqualTo("Bearer error=\"invalid_token\", error_description=\"the token is not known\"");
    assertThat(unknown.getMessage() + unknown.challenge("x")).doesNotContain("wrong-secret-value");

    assertThat(failure("Basic dXNlcjpwYXNz", null).status()).isEqualTo(401);
    assertThat(failure("Bearer ", null).status()).isEqualTo(401);
    AuthFailure odd = failure("Bearer secret\"value", null);
    assertThat(odd.error()).isEqualTo("invalid_token");
    assertThat(odd.getMessage()).doesNotContain("secret");
    assertThat(failure("Bearer " + "a".repeat(BearerToken.MAX_LENGTH + 1), null).getMessage()).contains("too long");
  }

  @Test
  void aServiceMayActForTheAgentsItsPatternsAllow() {
    Actor forTeam = auth.authenticate("Bearer " + EXECUTOR, "ark://agents/team-a-writer");
    Actor bare = auth.authenticate("Bearer " + EXECUTOR, "solo");

    assertThat(forTeam.principal().name()).isEqualTo("ark://agents/executor");
    assertThat(forTeam.actingFor()).isEqualTo("ark://agents/team-a-writer");
    assertThat(forTeam.effective()).isEqualTo(new Principal(PrincipalKind.AGENT, "ark://agents/team-a-writer", List.of(),
        AuthMethod.TOKEN));
    assertThat(bare.actingFor()).isEqualTo("ark://agents/solo");
    assertThat(auth.authenticate("Bearer " + EXECUTOR, "ark://agents/executor").impersonating()).isFalse();
  }

  @Test
  void actingForAnyOtherAgentIs403() {
    assertThat(failure("Bearer " + EXECUTOR, "ark://agents/team-b-writer").status()).isEqualTo(403);
    assertThat(failure("Bearer " + EXECUTOR, "ark://agents/solo2").status()).as("exact names are exact").isEqualTo(403);
    assertThat(failure("Bearer " + EXECUTOR, "ark://agents/team-a-").status()).as("a prefix needs a rest").isEqualTo(403);
    assertThat(failure("Bearer " + AGENT, "ark://agents/other").getMessage())
        .isEqualTo("ark://agents/reviewer may not act for ark://agents/other");
    assertThat(failure("Bearer " + HUMAN, "ark://agents/reviewer").status()).isEqualTo(403);
    assertThat(failure("Bearer " + ADMIN, "ark://agents/reviewer").status()).isEqualTo(403);
    assertThat(failure("Bearer " + AGENT, "ark://users/john").status()).as("no agent").isEqualTo(400);
    assertThat(failure("Bearer " + EXECUTOR, "ark://agents/team-a-x/../y").status()).isEqualTo(400);
    assertThat(failure("Bearer " + EXECUTOR, "ark://agents/team-b-writer").challenge(null)).isNull();
    assertThat(auth.authenticate("Bearer " + AGENT, "reviewer").impersonating()).as("naming itself").isFalse();
  }

  @Test
  void anOpenBrokerMakesEveryoneAnonymousAndTrustsTheNamedAgent() {
    Authenticators open = Authenticators.open();

    assertThat(open.isOpen()).isTrue();
    assertThat(open.authenticate(null, null)).isEqualTo(Actor.as(Principal.ANONYMOUS));
    assertThat(open.authenticate("Bearer whatever", "ark://agents/anyone").actingFor()).isEqualTo("ark://agents/anyone");
    assertThat(Principal.ANONYMOUS.method()).isEqualTo(AuthMethod.ANONYMOUS);
  }

  @Test
  void fromAnEventLoopTheCheckRunsOnAWorkerThread() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Actor actor = vertx.<Actor>executeBlocking(() -> null).compose(ignored -> {
        assertThat(Thread.currentThread().getName()).contains("eventloop");
        return auth.authenticate(vertx, "Bearer " + AGENT, null);
      }).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      Throwable refused = auth.authenticate(vertx, "Bearer nope", null).toCompletionStage().toCompletableFuture()
          .handle((ok, error) -> error).get(10, TimeUnit.SECONDS);

      assertThat(actor.principal().name()).isEqualTo("ark://agents/reviewer");
      assertThat(refused).isInstanceOf(AuthFailure.class);
      assertThat(Authenticators.open().authenticate(vertx, null, null).result()).isEqualTo(Actor.as(Principal.ANONYMOUS));
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aTokenSeenAMomentAgoIsAnsweredOnTheEventLoopUntilTheFileIsCheckedAgain() throws Exception {
    Path file = dir.resolve("tokens.json");
    AuthSettings everyFifthOfASecond = settings(file.toString(), "auto");
    everyFifthOfASecond = new AuthSettings(everyFifthOfASecond.mode(), everyFifthOfASecond.tokensFile(),
        java.time.Duration.ofMillis(200), everyFifthOfASecond.oidc(), everyFifthOfASecond.dashboardSignIn(),
        everyFifthOfASecond.clusterNetworks());
    Authenticators remembering = Authenticators.configured(everyFifthOfASecond);
    Vertx vertx = Vertx.vertx();
    try {
      remembering.grant(vertx, "Bearer " + AGENT).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      boolean answeredAtOnce = remembering.grant(vertx, "Bearer " + AGENT).isComplete();
      write(file, entry(HUMAN, "human", "ark://users/john"));

      assertThat(answeredAtOnce).isTrue();
      ark.broker.testing.Eventually.until("the removed token is refused", () -> remembering.grant(vertx, "Bearer " + AGENT)
          .toCompletionStage().toCompletableFuture().handle((ok, error) -> error).get(10, TimeUnit.SECONDS), error -> error != null);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void startDecidesFirst() {
    AuthSettings none = settings("", "auto");

    assertThat(Authenticators.start(none, Map.of("http.host", "127.0.0.1")).isOpen()).isTrue();
    IllegalStateException refused = catchThrowableOfType(IllegalStateException.class,
        () -> Authenticators.start(none, Map.of("http.host", "0.0.0.0")));
    assertThat(refused).hasMessageContaining("http.host=0.0.0.0").hasMessageContaining("AUTH_TOKENS_FILE");
    assertThat(Authenticators.start(settings(dir.resolve("tokens.json").toString(), "auto"), Map.of("http.host", "0.0.0.0"))
        .isOpen()).isFalse();
  }

  @Test
  void theChainTriesTheNextAuthenticatorForTokensTheFirstDoesNotKnow() {
    Principal fromSecond = new Principal(PrincipalKind.AGENT, "ark://agents/second", List.of(), AuthMethod.OIDC);
    Authenticators chain = Authenticators.of(List.of(token -> Optional.empty(),
        token -> token.equals("t2") ? Optional.of(Grant.of(fromSecond)) : Optional.empty()));

    assertThat(chain.authenticate("Bearer t2", null).principal()).isEqualTo(fromSecond);
    assertThat(catchThrowableOfType(AuthFailure.class, () -> chain.authenticate("Bearer t3", null)).status()).isEqualTo(401);
  }

  private AuthFailure failure(String header, String agent) {
    AuthFailure failure = catchThrowableOfType(AuthFailure.class, () -> auth.authenticate(header, agent));
    assertThat(failure).as("refused: %s", header).isNotNull();
    return failure;
  }

  static AuthSettings settings(String tokensFile, String mode) {
    JsonObject auth = new JsonObject().put("mode", mode).put("tokensFile", tokensFile).put("tokensCheckMillis", 0)
        .put("oidc", new JsonObject().put("issuer", "").put("audience", "").put("jwksUrl", "").put("nameClaim", "sub")
            .put("teamsClaim", "groups").put("kindClaim", "").put("adminTeams", new io.vertx.core.json.JsonArray())
            .put("clockSkewSeconds", 60).put("dashboardClientId", "").put("dashboardScopes", new io.vertx.core.json.JsonArray())
            .put("requiredScopes", new io.vertx.core.json.JsonArray()).put("sharedNames", new io.vertx.core.json.JsonArray()))
        .put("clusterNetworks", new io.vertx.core.json.JsonArray());
    return AuthSettings.from(auth);
  }


  private static String tokenOf(String who) {
    return who + "-token";
  }
}
