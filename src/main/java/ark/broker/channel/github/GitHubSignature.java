package ark.broker.channel.github;

import ark.broker.bus.Messages.InboundRequest;
import ark.broker.channel.Hmac;
import ark.broker.channel.InboundProblem;
import ark.broker.channel.Secret;

/**
 * GitHub's webhook signature: {@code X-Hub-Signature-256} is {@code sha256=} and the hex HMAC-SHA256,
 * keyed with the webhook's secret, of the raw body. It has no timestamp, so replays are caught by
 * {@code X-GitHub-Delivery} instead (see {@link GitHubWebhook}).
 */
record GitHubSignature(Secret webhookSecret) {
  void verify(InboundRequest request) {
    String signature = request.header("X-Hub-Signature-256");
    if (signature == null) {
      throw new InboundProblem(401, "the request is not signed: X-Hub-Signature-256 is required");
    }
    if (!Hmac.sameSignature("sha256=" + Hmac.sha256Hex(webhookSecret, request.body().getBytes()), signature)) {
      throw new InboundProblem(401, "X-Hub-Signature-256 does not match the request");
    }
  }
}
