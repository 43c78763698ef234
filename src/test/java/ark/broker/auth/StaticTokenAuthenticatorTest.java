package ark.broker.auth;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static ark.broker.auth.TokensFixture.entry;
import static ark.broker.auth.TokensFixture.write;
import static ark.broker.auth.TokensFixture.writeText;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StaticTokenAuthenticatorTest {
  private static final String REVIEWER_TOKEN = "reviewer-secret-token-1";
  private static final String JOHN_TOKEN = "john-secret-token-2";
  private static final String EXECUTOR_TOKEN = "executor-secret-token-3";

  @TempDir
  Path dir;
  private Path file;
  private ListAppender<ILoggingEvent> log;

  @BeforeEach
  void setUp() throws IOException {
    file = dir.resolve("tokens.json");
    write(file,
        entry(REVIEWER_TOKEN, "agent", "ark://agents/reviewer"),
        entry(JOHN_TOKEN, "human", "ark://users/john", List.of("ark://teams/ops"), List.of()),
        entry(EXECUTOR_TOKEN, "service", "ark://agents/executor", List.of(), List.of("ark://agents/team-a*")));
    log = new ListAppender<>();
    log.start();
    ((Logger) LoggerFactory.getLogger(StaticTokenAuthenticator.class)).addAppender(log);
  }

  @AfterEach
  void tearDown() {
    ((Logger) LoggerFactory.getLogger(StaticTokenAuthenticator.class)).detachAppender(log);
  }

  @Test
  void aListedTokenGrantsItsEntry() {
    StaticTokenAuthenticator tokens = StaticTokenAuthenticator.load(file, Duration.ofHours(1));

    assertThat(tokens.authenticate(JOHN_TOKEN)).contains(Grant.of(
        new Principal(PrincipalKind.HUMAN, "ark://users/john", List.of("ark://teams/ops"), AuthMethod.TOKEN)));
    Grant executor = tokens.authenticate(EXECUTOR_TOKEN).orElseThrow();
    assertThat(executor.principal().kind()).isEqualTo(PrincipalKind.SERVICE);
    assertThat(executor.mayActFor().patterns()).containsExactly("ark://agents/team-a*");
    assertThat(tokens.authenticate(REVIEWER_TOKEN).orElseThrow().principal().name()).isEqualTo("ark://agents/reviewer");
  }

  @Test
  void anyOtherTokenIsUnknown() {
    StaticTokenAuthenticator tokens = StaticTokenAuthenticator.load(file, Duration.ofHours(1));

    assertThat(tokens.authenticate(JOHN_TOKEN + "x")).isEmpty();
    assertThat(tokens.authenticate(JOHN_TOKEN.substring(1))).isEmpty();
    // The hash itself is not a token: only its preimage is.
    assertThat(tokens.authenticate(TokenHash.hex(JOHN_TOKEN))).isEmpty();
  }

  @Test
  void aChangedFileTakesEffectWithoutRestart() throws IOException {
    StaticTokenAuthenticator tokens = rereadingAtOnce();
    assertThat(tokens.authenticate("new-token-4")).isEmpty();

    write(file, entry("new-token-4", "agent", "ark://agents/newcomer"), entry(JOHN_TOKEN, "admin", "ark://users/john"));

    assertThat(tokens.authenticate("new-token-4").orElseThrow().principal().name()).isEqualTo("ark://agents/newcomer");
    assertThat(tokens.authenticate(JOHN_TOKEN).orElseThrow().principal().kind()).isEqualTo(PrincipalKind.ADMIN);
    assertThat(tokens.authenticate(REVIEWER_TOKEN)).as("a token removed from the file").isEmpty();
  }

  @Test
  void theFileIsLookedAtAtMostOncePerInterval() throws IOException {
    StaticTokenAuthenticator tokens = StaticTokenAuthenticator.load(file, Duration.ofHours(1));

    write(file, entry("new-token-4", "agent", "ark://agents/newcomer"));

    assertThat(tokens.authenticate("new-token-4")).isEmpty();
    assertThat(tokens.authenticate(REVIEWER_TOKEN)).isPresent();
  }

  @Test
  void aBrokenNewFileKeepsThePreviousTokensAndWarnsOnceWithoutSecrets() throws IOException {
    StaticTokenAuthenticator tokens = rereadingAtOnce();
    String hash = TokenHash.hex("leaked-token");

    writeText(file, "{\"tokens\": [{\"sha256\": \"" + hash + "\", \"kind\": \"agent\", \"name\": \"ark://agents/x\"");
    assertThat(tokens.authenticate(REVIEWER_TOKEN)).isPresent();
    assertThat(tokens.authenticate(JOHN_TOKEN)).isPresent();
    assertThat(tokens.authenticate("leaked-token")).isEmpty();

    List<ILoggingEvent> warnings = log.list.stream().filter(event -> event.getLevel().toString().equals("WARN")).toList();
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0).getFormattedMessage()).contains(file.toString()).contains("not valid JSON")
        .contains("3 tokens read before").doesNotContain(hash).doesNotContain(hash.substring(0, 16));

    // Fixed again: read again.
    write(file, entry("leaked-token", "agent", "ark://agents/x"));
    assertThat(tokens.authenticate("leaked-token")).isPresent();
    assertThat(tokens.authenticate(REVIEWER_TOKEN)).isEmpty();
  }

  @Test
  void aNewFileWithABadEntryIsRefusedWhole() throws IOException {
    StaticTokenAuthenticator tokens = rereadingAtOnce();

    write(file, entry("new-token-4", "agent", "ark://agents/newcomer"), entry("other", "agent", "ark://users/not-an-agent"));

    assertThat(tokens.authenticate("new-token-4")).isEmpty();
    assertThat(tokens.authenticate(REVIEWER_TOKEN)).isPresent();
    assertThat(log.list).singleElement().extracting(ILoggingEvent::getFormattedMessage).asString()
        .contains("tokens[1]").contains("ark://agents/<name>");
  }

  @Test
  void aVanishedFileKeepsThePreviousTokens() throws IOException {
    StaticTokenAuthenticator tokens = rereadingAtOnce();

    Files.delete(file);

    assertThat(tokens.authenticate(REVIEWER_TOKEN)).isPresent();
    assertThat(tokens.authenticate(JOHN_TOKEN)).isPresent();
    assertThat(log.list).hasSize(1);
    write(file, entry("back", "agent", "ark://agents/back"));
    assertThat(tokens.authenticate("back")).isPresent();
  }

  @Test
  void aBrokenFileAtStartStopsTheStartWithoutSecrets() throws IOException {
    String hash = TokenHash.hex("some-token");
    writeText(file, "{\"tokens\": [{\"sha256\": \"" + hash + "\", \"kind\": \"robot\", \"name\": \"ark://agents/x\"}]}");

    assertThatThrownBy(() -> StaticTokenAuthenticator.load(file, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("auth.tokensFile").hasMessageContaining("tokens[0]").hasMessageContaining("robot")
        .hasMessageNotContaining(hash);
    assertThatThrownBy(() -> StaticTokenAuthenticator.load(dir.resolve("missing.json"), Duration.ZERO))
        .hasMessageContaining("does not exist");
  }

  @Test
  void hashesNeverShowInTextForms() throws IOException {
    StaticTokenAuthenticator tokens = rereadingAtOnce();
    TokenEntry entry = TokensFile.parse(("{\"tokens\": [" + entry(JOHN_TOKEN, "human", "ark://users/john").encode() + "]}")
        .getBytes(StandardCharsets.UTF_8)).get(0);

    assertThat(entry.toString()).contains("ark://users/john").doesNotContain(TokenHash.hex(JOHN_TOKEN))
        .doesNotContain(JOHN_TOKEN);
    assertThat(tokens.authenticate(JOHN_TOKEN).orElseThrow().toString()).doesNotContain(TokenHash.hex(JOHN_TOKEN));
  }

  @Test
  void entriesAreCheckedFieldByField() {
    assertThat(problem("{}")).contains("\"tokens\" list");
    assertThat(problem("{\"tokens\": [{\"sha256\": \"abc\", \"kind\": \"agent\", \"name\": \"ark://agents/x\"}]}"))
        .contains("tokens[0].sha256");
    assertThat(problem(file(entry("t", "agent", "ark://agents/x").put("mayactfor", "typo"))))
        .contains("unknown field 'mayactfor'");
    assertThat(problem(file(entry("t", "agent", "ark://agents/x", List.of(), List.of("ark://agents/*")))))
        .contains("only a service may act for agents");
    assertThat(problem(file(entry("t", "human", "ark://users/x", List.of("ops"), List.of()))))
        .contains("ark://teams/<name>");
    assertThat(problem(file(entry("t", "service", "ark://agents/x", List.of(), List.of("ark://agents/*-a")))))
        .contains("only at its end");
    assertThat(problem(file(entry("t", "agent", "ark://agents/x"), entry("t", "agent", "ark://agents/y"))))
        .contains("tokens[1] has the same sha256 as tokens[0]");
    assertThat(TokensFile.parse(file(entry("t", "admin", "ark://users/root"), entry("u", "service", "ark://users/svc"))
        .getBytes(StandardCharsets.UTF_8))).hasSize(2);
  }

  private static String file(io.vertx.core.json.JsonObject... entries) {
    return new io.vertx.core.json.JsonObject().put("tokens", new io.vertx.core.json.JsonArray(List.of((Object[]) entries)))
        .encode();
  }

  private static String problem(String content) {
    try {
      TokensFile.parse(content.getBytes(StandardCharsets.UTF_8));
      return "accepted";
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }


  /** The tokens, read again at every use whose file changed. */
  private StaticTokenAuthenticator rereadingAtOnce() throws IOException {
    return StaticTokenAuthenticator.load(file, Duration.ZERO);
  }
}
