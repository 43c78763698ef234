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
 * clicks, comments). Passed as it came, raw body and headers, to the channel room, which checks the
 * signature and decides the answer; this surface only writes that answer back.
 */
record ChannelEvents(EventBus bus, long timeoutMillis) {

  void forward(RoutingContext ctx) {
    Map<String, String> headers = new HashMap<>();
    ctx.request().headers().forEach(header -> headers.putIfAbsent(header.getKey().toLowerCase(Locale.ROOT), header.getValue()));
    Buffer body = ctx.body().buffer() == null ? Buffer.buffer() : ctx.body().buffer();
    DeliveryOptions options = new DeliveryOptions()
        .setSendTimeout(timeoutMillis)
        .addHeader(Addresses.REQUEST_ID_HEADER, RequestLog.requestId(ctx));
    bus.<InboundResponse>request(Addresses.CHANNELS_INBOUND, new InboundRequest(ctx.pathParam("channel"), headers, body), options)
        .onSuccess(reply -> ctx.response()
            .setStatusCode(reply.body().status())
            .putHeader("Content-Type", reply.body().contentType())
            .end(reply.body().body()))
        .onFailure(ctx::fail);
  }
}
