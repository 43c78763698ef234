package ark.broker.http;

import ark.broker.testing.Chromium;
import ark.broker.testing.Identities;
import ark.broker.testing.NodeDriven;
import ark.broker.testing.NodeScript;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard of a broker that authenticates, in a real Chromium: a pasted token signs in, and answers are its own. */
@NodeDriven
class DashboardTokenSignInBrowserTest {
  @TempDir
  static Path dir;
  static TestBroker broker;
  static Path chromium;

  @BeforeAll
  static void start() throws Exception {
    chromium = Chromium.assumeInstalled();
    broker = TestBroker.start(dir.resolve("data"), Identities.config(dir));
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void aPastedTokenSignsInAndAnswersAreRecordedAsItsPrincipal() throws Exception {
    String tokens = new JsonObject().put("agent", AGENT).put("human", HUMAN).put("admin", ADMIN).encode();
    NodeScript.Run run = NodeScript.run(120, "dashboard-signin.mjs", "token", broker.base.toString(),
        chromium.toString(), tokens);
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    JsonObject seen = new JsonObject(run.lastLine());

    assertThat(seen.getBoolean("questionsHiddenBeforeSignIn")).isTrue();
    assertThat(seen.getBoolean("oidcOffered")).as("no dashboard client id is configured").isFalse();
    assertThat(seen.getString("badTokenError")).isEqualTo("That token was not accepted: the token is not known");
    assertThat(seen.getBoolean("signInAfterBadToken")).isTrue();
    assertThat(seen.getBoolean("keptBadToken")).isFalse();

    assertThat(seen.getString("name")).isEqualTo(HUMAN_NAME);
    assertThat(seen.getString("identityDetail")).isEqualTo("human · " + TEAM);
    assertThat(seen.getBoolean("answeredByFieldShown")).as("the broker knows who answers").isFalse();
    assertThat(seen.getBoolean("signInAfterGoodToken")).isFalse();
    assertThat(seen.getString("nameAfterReload")).isEqualTo(HUMAN_NAME);

    assertThat(seen.getString("cardText")).contains("Merge PR").contains(AGENT_NAME);
    assertThat(seen.getString("settledText")).contains("Answered by " + HUMAN_NAME + ": merge");
    assertThat(seen.getJsonObject("answered").getString("status")).isEqualTo("answered");
    assertThat(seen.getJsonObject("answered").getString("answeredBy")).isEqualTo(HUMAN_NAME);

    assertThat(seen.getString("refusal")).startsWith("only " + OTHER_HUMAN_NAME + " may answer question ");
    assertThat(seen.getJsonObject("notHersStored").getString("status")).isEqualTo("pending");
    assertThat(seen.getJsonObject("declinedStored").getString("status")).isEqualTo("cancelled");
    JsonObject declinedBy = seen.getJsonObject("declinedEvents").getJsonArray("items").getJsonObject(1);
    assertThat(declinedBy.getString("reason")).isEqualTo("not mine to rebase");
    assertThat(declinedBy.getJsonObject("by").getString("principal")).isEqualTo("ark://users/ann");

    assertThat(seen.getBoolean("questionsHiddenAfterSignOut")).isTrue();
    assertThat(seen.getBoolean("keptTokenAfterSignOut")).isFalse();
    assertThat(seen.getInteger("cardsAfterSignOut")).isZero();
    assertThat(seen.getJsonArray("blockedByContentSecurityPolicy")).isEmpty();
  }
}
