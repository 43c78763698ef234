package ark.broker.http;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The access log's view of a request target: the parameters the routes read keep their values, every other one keeps
 * only its name, whatever it is called (a credential need not be named like one).
 */
class RequestLogTest {
  @Test
  void onlyTheParametersTheRoutesReadKeepTheirValues() {
    for (String target : new String[] {"/questions", "/questions?limit=5&watch=true&resourceVersion=7&status=pending",
        "/messages?conversation_id=c-1&query_id=q-1&cursor=3&watch=true",
        "/sessions?dateFrom=2026-01-01&dateTo=2026-02-01&sort=asc&search=x",
        "/stream/q-1?from-beginning=true&wait-for-query=5&max-chunk-size=9"}) {
      assertThat(RequestLog.withoutCredentials(target)).isEqualTo(target);
    }
  }

  @Test
  void everyOtherParameterKeepsItsNameOnly() {
    Map<String, String> logged = Map.of(
        "/messages?bearer=eyJhbGciOi.x.y&pass=hunter2&conversation_id=c-1",
        "/messages?bearer=[redacted]&pass=[redacted]&conversation_id=c-1",
        "/channels/email/answer?token=abc&q=q-1", "/channels/email/answer?token=[redacted]&q=q-1",
        "/?code=4/0Ab&state=xyz&session_state=s", "/?code=[redacted]&state=[redacted]&session_state=[redacted]",
        // A name counts as the routes read it: decoded, in its case.
        "/x?Access%5FToken=t1&LIMIT=1&limit%00=2&c%75rsor=3",
        "/x?Access%5FToken=[redacted]&LIMIT=[redacted]&limit%00=[redacted]&c%75rsor=3",
        "/q?token&a=%zz", "/q?token&a=[redacted]");

    logged.forEach((target, line) -> assertThat(RequestLog.withoutCredentials(target)).as(target).isEqualTo(line));
  }
}
