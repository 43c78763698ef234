package ark.broker.http;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The access log's view of a request target: every parameter that may carry a credential keeps its name only. */
class RequestLogTest {
  @Test
  void credentialBearingParametersAreRedactedWhateverTheirCaseOrEncoding() {
    assertThat(RequestLog.withoutCredentials("/questions?access_token=eyJhbGciOi.x.y&status=pending"))
        .isEqualTo("/questions?access_token=[redacted]&status=pending");
    assertThat(RequestLog.withoutCredentials("/channels/email/answer?token=abc&q=q-1"))
        .isEqualTo("/channels/email/answer?token=[redacted]&q=q-1");
    assertThat(RequestLog.withoutCredentials("/?code=4/0Ab&state=xyz&session_state=s"))
        .isEqualTo("/?code=[redacted]&state=xyz&session_state=[redacted]");
    assertThat(RequestLog.withoutCredentials("/x?Access%5FToken=t1&API_KEY=k&client_secret=c&password=p&sig=s&jwt=j"))
        .isEqualTo("/x?Access%5FToken=[redacted]&API_KEY=[redacted]&client_secret=[redacted]&password=[redacted]"
            + "&sig=[redacted]&jwt=[redacted]");
    assertThat(RequestLog.withoutCredentials("/questions?limit=5&watch=true&resourceVersion=7"))
        .isEqualTo("/questions?limit=5&watch=true&resourceVersion=7");
    assertThat(RequestLog.withoutCredentials("/questions")).isEqualTo("/questions");
    assertThat(RequestLog.withoutCredentials("/q?token&a=%zz")).isEqualTo("/q?token&a=%zz");
  }
}
