package ark.broker.http;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** A method Ark's routes do not serve on a path they do is 405 in their envelope, naming the methods they serve. */
class ArkMethodNotAllowedTest {
  static TestBroker broker;
  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(started -> broker = started);

  @Test
  void anUnservedMethodOnAnArkRouteIsMethodNotAllowedWithTheMethodsItServes() throws Exception {
    Response refused = broker.send(HttpRequest.newBuilder(broker.base.resolve("/messages"))
        .header("X-Request-ID", "req-405").PUT(HttpRequest.BodyPublishers.noBody()));

    assertThat(refused.status()).isEqualTo(405);
    assertThat(refused.error().getString("code")).isEqualTo("METHOD_NOT_ALLOWED");
    assertThat(refused.error().getString("message")).contains("PUT");
    assertThat(refused.error().getString("requestId")).isEqualTo("req-405");
    assertThat(Arrays.stream(refused.header("Allow").split(",")).map(String::trim)).contains("GET", "POST");
  }
}
