package ark.broker.http;

import ark.broker.bus.Addresses;
import ark.broker.bus.Messages.InboundRequest;
import ark.broker.bus.Messages.InboundResponse;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.ext.web.RoutingContext;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code POST /channels/{channel}/events}: what Slack, GitHub and other channels send back (button
 * clicks, comments); {@code GET} and {@code POST /channels/{channel}/answer}: the answer page an emailed link
 * opens. Passed as it came, raw body, query and headers, to the channel room, which checks the signature
 * and decides the answer; this surface only writes that answer back.
 */
record ChannelEvents(EventBus bus, long timeoutMillis) {
  /** A channel may answer with a page for a person (the email answer page): it loads nothing and goes nowhere else. */
  private static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

  void forward(RoutingContext ctx) {
    Map<String, String> headers = new HashMap<>();
    ctx.request().headers().forEach(header -> headers.putIfAbsent(header.getKey().toLowerCase(Locale.ROOT), header.getValue()));
    Buffer body = ctx.body().buffer() == null ? Buffer.buffer() : ctx.body().buffer();
    DeliveryOptions options = new DeliveryOptions()
        .setSendTimeout(timeoutMillis)
        .addHeader(Addresses.REQUEST_ID_HEADER, RequestLog.requestId(ctx));
    bus.<InboundResponse>request(Addresses.CHANNELS_INBOUND, new InboundRequest(ctx.pathParam("channel"),
            ctx.request().method().name(), ctx.request().query(), headers, body), options)
        .onSuccess(reply -> ctx.response()
            .setStatusCode(reply.body().status())
            .putHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY)
            // An answer link carries a token: no page may learn it from a Referer, no cache may keep it.
            .putHeader("Referrer-Policy", "no-referrer")
            .putHeader("Cache-Control", "no-store")
            .putHeader("X-Content-Type-Options", "nosniff")
            .putHeader("Content-Type", reply.body().contentType())
            .end(reply.body().body()))
        .onFailure(ctx::fail);
  }
}
