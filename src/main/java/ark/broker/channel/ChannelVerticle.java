package ark.broker.channel;

import ark.broker.bus.Addresses;
import ark.broker.bus.Messages.InboundRequest;
import ark.broker.bus.Messages.InboundResponse;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.StoreFailure.Reason;
import ark.broker.bus.WorkerRole;
import ark.broker.channel.email.EmailChannel;
import ark.broker.channel.github.GitHubChannel;
import ark.broker.channel.slack.SlackChannel;
import ark.broker.channel.webhook.WebhookChannel;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Slack, GitHub, the webhook and email: questions out to where people read them, answers back from there.
 * Outbound delivery is once-only work, done by the {@link Dispatcher} while this replica is the worker;
 * inbound requests (button clicks, comments) are handled on whichever replica they reach. Everything
 * goes through the store on the bus; nothing here holds state another replica needs.
 */
public final class ChannelVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(ChannelVerticle.class);

  private final ChannelSettings settings;
  private final QuestionStore store;
  private final Clock clock;
  private final Answering answering;
  private final boolean onlyRecipients;
  /** The channels that take requests (button clicks, comments), by name. */
  private final Map<String, Inbound> inbound = new HashMap<>();
  private ApiClient client;
  private Dispatcher dispatcher;

  /** @param authOn whether the broker authenticates its callers; {@code channels.onlyRecipientsMayAnswer: auto} follows it */
  public ChannelVerticle(ChannelSettings settings, QuestionStore store, boolean authOn, Clock clock) {
    this.onlyRecipients = settings.onlyRecipientsMayAnswer().applies(authOn);
    this.answering = new Answering(store, onlyRecipients);
    this.settings = settings;
    this.store = store;
    this.clock = clock;
  }

  @Override
  public Future<?> start() {
    EventBus bus = vertx.eventBus();
    client = new ApiClient(vertx, clock, settings.requestTimeoutMillis());
    List<Channel> channels = new ArrayList<>();
    if (settings.slack() != null) {
      SlackChannel slack = new SlackChannel(client, settings.slack(), settings.directory(), clock);
      channels.add(slack);
      inbound.put("slack", slack.interactions(answering));
    }
    if (settings.github() != null) {
      GitHubChannel github = GitHubChannel.over(client, settings.github(), settings.directory(), clock);
      channels.add(github);
      inbound.put("github", github.webhook(answering));
    }
    if (settings.webhook() != null) {
      channels.add(new WebhookChannel(client, settings.webhook(), clock));
    }
    if (settings.email() != null) {
      EmailChannel email = new EmailChannel(vertx, settings.email(), settings.directory(), settings.requestTimeoutMillis(), clock);
      channels.add(email);
      inbound.put("email", email.answerPage(answering));
    }
    dispatcher = new Dispatcher(vertx, store, new Destinations(channels, settings.routes()), settings.backoff(),
        settings.resyncMillis(), clock);

    List<Future<Void>> registered = new ArrayList<>();
    registered.add(bus.<InboundRequest>localConsumer(Addresses.CHANNELS_INBOUND, this::inbound).completion());
    if (!channels.isEmpty()) {
      registered.add(bus.<QuestionChange>localConsumer(Addresses.QUESTIONS_CHANGED, m -> dispatcher.onChange(m.body())).completion());
    }
    return Future.all(registered).onSuccess(ready -> {
      LOG.info("Channels enabled: {}{}", channels.isEmpty() ? "none" : String.join(", ", enabledNames()), inbound.isEmpty() ? ""
          : onlyRecipients ? "; answers in them from recipients only" : "; answers in them from anyone who sees the question");
      if (!channels.isEmpty()) {
        WorkerRole.follow(bus, this::followWorkerRole);
      }
    });
  }

  @Override
  public Future<?> stop() {
    dispatcher.stop();
    return client.close();
  }

  private void followWorkerRole(boolean active) {
    if (active) {
      dispatcher.activate();
    } else {
      dispatcher.deactivate();
    }
  }

  /** Answers within {@code ackTimeoutMillis} whatever happens, because Slack gives up after 3 seconds. */
  private void inbound(Message<InboundRequest> message) {
    InboundRequest request = message.body();
    String requestId = message.headers().get(Addresses.REQUEST_ID_HEADER);
    Inbound handler = inbound.get(request.channel());
    if (handler == null) {
      message.fail(Reason.NOT_FOUND.code, "no channel named '" + request.channel() + "' takes requests on this broker");
      return;
    }
    boolean[] answered = {false};
    long timer = vertx.setTimer(settings.ackTimeoutMillis(), late -> {
      answered[0] = true;
      LOG.warn("A {} request took longer than {} ms; acknowledged it while it goes on [request {}]", request.channel(),
          settings.ackTimeoutMillis(), requestId);
      message.reply(Inbound.json(202, new JsonObject().put("status", "accepted")));
    });
    Future<InboundResponse> result;
    try {
      result = handler.handle(request, requestId);
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result.onComplete(done -> {
      vertx.cancelTimer(timer);
      if (done.failed()) {
        logRefusal(request, requestId, done.cause());
      }
      if (answered[0]) {
        return;
      }
      if (done.succeeded()) {
        message.reply(done.result());
      } else if (done.cause() instanceof InboundProblem problem) {
        message.fail(problem.status, problem.getMessage());
      } else {
        message.fail(Reason.INTERNAL.code, "internal error");
      }
    });
  }

  private static void logRefusal(InboundRequest request, String requestId, Throwable failure) {
    if (failure instanceof InboundProblem problem) {
      LOG.info("Refused a {} request with {}: {} [request {}]", request.channel(), problem.status, problem.getMessage(), requestId);
    } else {
      LOG.error("A {} request failed [request {}]", request.channel(), requestId, failure);
    }
  }

  private List<String> enabledNames() {
    List<String> names = new ArrayList<>();
    if (settings.slack() != null) {
      names.add("slack (" + settings.slack().conversations().size() + " conversations)");
    }
    if (settings.github() != null) {
      names.add("github");
    }
    if (settings.webhook() != null) {
      names.add("webhook");
    }
    if (settings.email() != null) {
      names.add("email (SMTP " + settings.email().host() + ":" + settings.email().port() + ")");
    }
    return names;
  }
}
