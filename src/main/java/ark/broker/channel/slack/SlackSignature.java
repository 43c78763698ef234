package ark.broker.channel.slack;

import ark.broker.bus.Messages.InboundRequest;
import ark.broker.channel.Hmac;
import ark.broker.channel.InboundProblem;
import ark.broker.channel.Secret;

import java.nio.charset.StandardCharsets;
import java.time.Clock;

/**
 * Slack's request signature, version 0: {@code X-Slack-Signature} is {@code v0=} and the hex
 * HMAC-SHA256, keyed with the app's signing secret, of {@code v0:<X-Slack-Request-Timestamp>:<raw body>}.
 * Requests more than five minutes from now either way are refused, so a captured request cannot be replayed later.
 */
record SlackSignature(Secret signingSecret, Clock clock) {
  static final long WINDOW_SECONDS = 300;

  void verify(InboundRequest request) {
    String timestamp = request.header("X-Slack-Request-Timestamp");
    String signature = request.header("X-Slack-Signature");
    if (timestamp == null || signature == null) {
      throw new InboundProblem(401, "the request is not signed: X-Slack-Request-Timestamp and X-Slack-Signature are required");
    }
    long seconds;
    try {
      seconds = Long.parseLong(timestamp.trim());
    } catch (NumberFormatException e) {
      throw new InboundProblem(401, "X-Slack-Request-Timestamp is not a number of seconds");
    }
    if (Math.abs(clock.instant().getEpochSecond() - seconds) > WINDOW_SECONDS) {
      throw new InboundProblem(401, "X-Slack-Request-Timestamp is more than " + WINDOW_SECONDS + " seconds from now");
    }
    String expected = "v0=" + Hmac.sha256Hex(signingSecret,
        ("v0:" + timestamp + ":").getBytes(StandardCharsets.UTF_8), request.body().getBytes());
    if (!Hmac.sameSignature(expected, signature)) {
      throw new InboundProblem(401, "X-Slack-Signature does not match the request");
    }
  }
}
