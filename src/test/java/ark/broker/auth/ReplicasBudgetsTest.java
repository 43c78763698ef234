package ark.broker.auth;

import ark.broker.testing.Identities;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestKafka;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static ark.broker.testing.Identities.AGENT;
import static ark.broker.testing.Identities.AGENT_NAME;
import static ark.broker.testing.Identities.HUMAN_NAME;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A minute's create budget holds for two replicas sharing Kafka together: creates one replica admitted spend what the
 * other allows, since both count the create records of the shared log.
 */
class ReplicasBudgetsTest {
  private static final int PER_MINUTE = 4;

  @TempDir
  Path dir;

  @Test
  void aCallerSpreadingItsCreatesOverTwoReplicasGetsOneBudgetNotTwo() throws Exception {
    JsonObject config = Identities.config(dir).mergeIn(TestKafka.shared().cluster(), true)
        .put("budgets", new JsonObject().put("overrides", new JsonObject()
            .put(AGENT_NAME, new JsonObject().put("maxPendingQuestions", 0).put("createsPerMinute", PER_MINUTE))));
    try (TestBroker a = TestBroker.start(dir.resolve("a"), config);
         TestBroker b = TestBroker.start(dir.resolve("b"), config)) {
      String lastOnA = null;
      for (int i = 0; i < PER_MINUTE / 2; i++) {
        lastOnA = a.as(AGENT).ask("{'recipient':'" + HUMAN_NAME + "','content':'On A " + i + "?'}").getString("id");
      }
      // Reading it on B makes B catch up with the log: A's creates are B's to count now.
      assertThat(b.as(AGENT).get("/questions/" + lastOnA).status()).isEqualTo(200);
      String lastOnB = null;
      for (int i = 0; i < PER_MINUTE / 2; i++) {
        lastOnB = b.as(AGENT).ask("{'recipient':'" + HUMAN_NAME + "','content':'On B " + i + "?'}").getString("id");
      }
      assertThat(a.as(AGENT).get("/questions/" + lastOnB).status()).isEqualTo(200);

      for (TestBroker replica : new TestBroker[] {b, a}) {
        TestBroker.Response refused = replica.as(AGENT).post("/questions",
            "{\"recipient\":\"" + HUMAN_NAME + "\",\"content\":\"One too many?\"}");
        assertThat(refused.status()).as("on %s: %s", replica.base, refused.body()).isEqualTo(429);
        assertThat(refused.error().getString("message")).contains("may create " + PER_MINUTE + " questions a minute");
      }
    }
  }
}
