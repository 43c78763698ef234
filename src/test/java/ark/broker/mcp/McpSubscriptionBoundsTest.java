package ark.broker.mcp;

import ark.broker.bus.Addresses;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.McpTestClient.Reply;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Subscriptions are stored with the session, so they are bounded: in number, in URI length, and to
 * resources that exist. A refused subscribe leaves the stored session exactly as it was.
 */
class McpSubscriptionBoundsTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject().put("mcp", new JsonObject()
      .put("maxSubscriptionsPerSession", 2).put("maxSubscriptionUriLength", 100)), started -> broker = started);

  /** The session as the store keeps it, read without using it. */
  private static String stored(McpTestClient client) {
    return Addresses.MCP_SESSION_STORE.client(broker.vertx.eventBus(), 10_000).find(client.sessionId)
        .toCompletionStage().toCompletableFuture().join();
  }

  private static JsonArray subscriptions(McpTestClient client) {
    return new JsonObject(stored(client)).getJsonArray("subscriptions");
  }

  private static Reply subscribe(McpTestClient client, String uri) throws Exception {
    return client.call("resources/subscribe", new JsonObject().put("uri", uri));
  }

  private static String questionUri() throws Exception {
    return "ark://questions/" + broker.ask("{'recipient':'" + TestBroker.someone() + "','content':'Subscribe?'}").getString("id");
  }

  @Test
  void onlyQuestionsThatExistAndThePendingListMayBeSubscribedTo() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String before = stored(client);
    String unknown = "ark://questions/q-00000000-0000-0000-0000-000000000000";

    for (String uri : new String[] {unknown, "ark://questions/", "file:///etc/passwd"}) {
      Reply refused = subscribe(client, uri);
      assertThat(refused.error().getInteger("code")).as(uri).isEqualTo(-32002);
      assertThat(refused.error().getString("message")).isEqualTo("Resource not found: " + uri);
      assertThat(refused.error().getJsonObject("data").getString("uri")).isEqualTo(uri);
    }
    assertThat(stored(client)).as("nothing stored").isEqualTo(before);

    String question = questionUri();
    assertThat(subscribe(client, question).result()).isEqualTo(new JsonObject());
    assertThat(subscribe(client, QuestionResources.PENDING).result()).isEqualTo(new JsonObject());
    assertThat(subscriptions(client)).containsExactlyInAnyOrder(question, QuestionResources.PENDING);
  }

  @Test
  void aSessionHasAtMostItsLimitOfSubscriptionsAndRepeatsStoreNothing() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String first = questionUri();
    String second = questionUri();
    subscribe(client, first);
    subscribe(client, second);
    String full = stored(client);

    assertThat(subscribe(client, first).result()).as("already subscribed").isEqualTo(new JsonObject());
    Reply third = subscribe(client, questionUri());

    assertThat(third.error().getInteger("code")).isEqualTo(-32600);
    assertThat(third.error().getString("message")).contains("already has 2 subscriptions, the most it may have");
    assertThat(client.call("resources/unsubscribe", new JsonObject().put("uri", "ark://questions/never-subscribed"))
        .result()).isEqualTo(new JsonObject());
    assertThat(stored(client)).as("nothing stored").isEqualTo(full);

    client.call("resources/unsubscribe", new JsonObject().put("uri", first));
    String another = questionUri();
    assertThat(subscribe(client, another).result()).as("room again after an unsubscribe").isEqualTo(new JsonObject());
    assertThat(subscriptions(client)).containsExactlyInAnyOrder(second, another);
  }

  @Test
  void aUriLongerThanTheLimitIsRefused() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String before = stored(client);

    Reply refused = subscribe(client, "ark://questions/q-" + "x".repeat(200 * 1024));

    assertThat(refused.error().getInteger("code")).isEqualTo(-32602);
    assertThat(refused.error().getString("message")).contains("URIs of at most 100");
    assertThat(refused.error().getString("message").length()).as("the URI is not echoed").isLessThan(200);
    assertThat(stored(client)).isEqualTo(before);
  }
}
