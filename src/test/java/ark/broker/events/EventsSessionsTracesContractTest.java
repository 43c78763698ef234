package ark.broker.events;

import ark.broker.contract.ArkHttp;
import ark.broker.contract.BrokerUnderTest;
import ark.broker.contract.Checks;
import ark.broker.contract.EventsContract;
import ark.broker.contract.OtlpRequests;
import ark.broker.contract.SessionsContract;
import ark.broker.contract.TracesContract;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.Eventually;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The contract of Ark's broker for events, sessions and traces, against this broker on its embedded log. */
class EventsSessionsTracesContractTest implements EventsContract, SessionsContract, TracesContract {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject()
      .put("arkApi", new JsonObject().put("heartbeatSeconds", 1)), started -> broker = started);

  @Override
  public BrokerUnderTest broker() {
    return BrokerUnderTest.at(broker.base).heartbeatWithin(Duration.ofSeconds(5));
  }

  /** An operator sees at /metrics what each store took in, keeps and let go, store by store. */
  @Test
  void metricsCountWhatEachStoreTookInAndKeeps() throws Exception {
    ArkHttp ark = broker().first();
    double events = appended(ark, "events");
    double sessions = appended(ark, "sessions");
    double spans = appended(ark, "traces");
    double messages = appended(ark, "memory");
    double chunks = appended(ark, "streams");
    String session = "metrics-" + System.nanoTime();
    postEvent(ark, Checks.controllerEvent("QueryExecutionStart", session + "-uid", "q-1", session, Instant.now()));
    postOtlpJson(ark, List.of(OtlpRequests.jsonSpan(session + "-trace", "s1", session)));
    assertThat(ark.postJson("/messages", Checks.messages(session, "q-1", Checks.chat("user", "hi"))).status()).isEqualTo(200);
    assertThat(ark.post("/stream/" + session, "application/x-ndjson", "{\"n\":1}\n{\"n\":2}\n"
        .getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(200);

    assertThat(appended(ark, "events")).isEqualTo(events + 1);
    // The projection follows the events store's published facts a moment after the write was answered.
    Eventually.until("the sessions projection counted the event", () -> appended(ark, "sessions"),
        counted -> counted > sessions);
    assertThat(appended(ark, "traces")).isEqualTo(spans + 1);
    assertThat(appended(ark, "memory")).isEqualTo(messages + 1);
    assertThat(appended(ark, "streams")).isEqualTo(chunks + 2);
    String metrics = ark.get("/metrics").body();
    for (String store : List.of("events", "sessions", "traces", "memory", "streams")) {
      assertThat(metrics).contains("ark_broker_store_items{store=\"" + store + "\"}",
          "ark_broker_store_bytes{store=\"" + store + "\"}", "ark_broker_store_dropped_total{store=\"" + store + "\"}");
    }
  }

  private static double appended(ArkHttp ark, String store) throws Exception {
    Matcher counter = Pattern.compile("(?m)^ark_broker_store_appended_total\\{store=\"" + store + "\"} (\\S+)$")
        .matcher(ark.get("/metrics").body());
    assertThat(counter.find()).as("ark_broker_store_appended_total of %s", store).isTrue();
    return Double.parseDouble(counter.group(1));
  }
}
