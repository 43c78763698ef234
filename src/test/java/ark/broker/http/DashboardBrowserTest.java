package ark.broker.http;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.Chromium;
import ark.broker.testing.NodeScript;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard at {@code /}, in a real Chromium: people see questions live and answer them. */
class DashboardBrowserTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(started -> broker = started);

  @BeforeAll
  static void needsChromium() {
    Chromium.assumeInstalled();
  }

  @Test
  void peopleSeeQuestionsLiveAndAnswerThem() throws Exception {
    NodeScript.Run run = NodeScript.run(120, "dashboard.mjs", broker.base.toString(), Chromium.PATH.toString());
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    JsonObject seen = new JsonObject(run.lastLine());

    assertThat(seen.getString("title")).contains("Ark Broker");
    assertThat(seen.getString("identity")).as("an open broker asks no one to sign in").isEqualTo("open broker");
    assertThat(seen.getString("emptyText")).contains("Nothing is waiting");
    assertThat(seen.getString("cardText")).contains("Ship release 2.0?").contains("All checks are green")
        .contains("ark://agents/dashboard-test").contains("high");
    assertThat(seen.getInteger("pendingAfterClick")).isZero();
    assertThat(seen.getString("settledText")).contains("Answered by ark://users/person-").contains(": ship");
    assertThat(seen.getJsonObject("choiceStored").getString("response")).isEqualTo("ship");
    assertThat(seen.getJsonObject("choiceStored").getString("answeredBy")).startsWith("ark://users/person-");
    assertThat(seen.getJsonObject("freeStored").getString("response")).isEqualTo("release/2.0");
    assertThat(seen.getString("elsewhereText")).contains("yes, in Slack");
    assertThat(seen.getJsonObject("cancelledStored").getString("status")).isEqualTo("cancelled");
    assertThat(seen.getBoolean("pwned")).isFalse();
    assertThat(seen.getString("hostileText")).isEqualTo("<img src=x onerror=\"window.pwned=1\">");
    assertThat(seen.getJsonArray("pendingAfterReload")).containsExactly(seen.getString("hostileId"));
  }
}
