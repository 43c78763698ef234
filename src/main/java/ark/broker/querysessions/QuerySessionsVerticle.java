package ark.broker.querysessions;

import ark.broker.access.ArkBrokerAccess;
import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.EventStore;
import ark.broker.bus.ItemPage;
import ark.broker.bus.MemoryStore;
import ark.broker.bus.Messages.MemoryAppended;
import ark.broker.bus.Messages.QuerySessionChanged;
import ark.broker.bus.QuerySessionStore;
import ark.broker.bus.SessionFact;
import ark.broker.log.StoreMeters;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Ark's sessions: the projection ({@link SessionsView}) of the facts the events store keeps and the messages
 * conversation memory keeps, read through their contracts. It replays both at start, then follows what they
 * publish; every read first pulls what they hold after what it applied (one pull serving every read that arrived
 * while the previous one ran), so it sees every write acknowledged before it on any replica. Items arriving twice
 * (published and pulled) apply once, by their sequence.
 */
public final class QuerySessionsVerticle extends VerticleBase implements QuerySessionStore {
  private static final Logger LOG = LoggerFactory.getLogger(QuerySessionsVerticle.class);
  private static final long TRIM_MILLIS = 1000;
  /** Facts or messages one pull asks for. */
  private static final int PULL = 2000;
  private static final JsonFactory JSON = new JsonFactory();

  private final EventStore events;
  private final MemoryStore memory;
  private final QuerySessionSettings settings;
  private final Clock clock;
  private final MeterRegistry meters;
  private final List<MessageConsumer<?>> consumers = new ArrayList<>();
  private SessionsView view;
  /**
   * Published facts and messages that came before the first pull ended: they apply after it, as what follows it
   * (before that, what was published says nothing about what came before it).
   */
  private List<Object> held = new ArrayList<>();
  private Future<Void> pulling;
  private Promise<Void> nextPull;

  public QuerySessionsVerticle(EventStore events, MemoryStore memory, QuerySessionSettings settings, Clock clock,
                               MeterRegistry meters) {
    this.events = events;
    this.memory = memory;
    this.settings = settings;
    this.clock = clock;
    this.meters = meters;
  }

  @Override
  public Future<?> start() {
    view = new SessionsView(settings, new StoreMeters(meters, "sessions", this, verticle -> verticle.view.size(),
        verticle -> verticle.view.bytes()));
    consumers.add(vertx.eventBus().<SessionFact>localConsumer(Addresses.SESSION_FACTS,
        message -> published(message.body())));
    consumers.add(vertx.eventBus().<MemoryAppended>localConsumer(Addresses.MEMORY_APPENDED,
        message -> published(message.body())));
    return Future.all(consumers.stream().map(MessageConsumer::completion).toList())
        .compose(listening -> pulled())
        .map(pulled -> {
          Addresses.QUERY_SESSION_STORE.serve(vertx.eventBus(), this);
          vertx.setPeriodic(TRIM_MILLIS, tick -> view.trim(clock.millis()));
          LOG.info("Sessions ready: {} sessions from the facts up to {} and the messages up to {}", view.size(),
              view.factsThrough(), view.messagesThrough());
          return null;
        });
  }

  @Override
  public Future<?> stop() {
    return Future.join(consumers.stream().map(MessageConsumer::unregister).toList());
  }

  @Override
  public Future<byte[]> session(Actor actor, String sessionId) {
    return read(actor, () -> view.session(sessionId));
  }

  @Override
  public Future<List<byte[]>> all(Actor actor) {
    return read(actor, view::all);
  }

  @Override
  public Future<SessionPage> page(Actor actor, SessionQuery query) {
    return read(actor, () -> view.page(query));
  }

  @Override
  public Future<List<String>> sessionsOf(Actor actor, String queryName) {
    return read(actor, () -> view.sessionsOf(queryName));
  }

  @Override
  public Future<ItemPage> changes(Actor actor, String sessionId, long cursor, int limit) {
    return read(actor, () -> view.changes(sessionId, cursor, limit));
  }

  private <T> Future<T> read(Actor actor, Supplier<T> reading) {
    return ArkBrokerAccess.guarded(actor, () -> pulled().map(caughtUp -> {
      view.trim(clock.millis());
      return reading.get();
    }));
  }

  private void published(Object item) {
    if (held != null) {
      held.add(item);
    } else {
      apply(item);
    }
  }

  private void apply(Object item) {
    if (item instanceof SessionFact fact) {
      for (SessionState changed : view.apply(fact, clock.millis())) {
        vertx.eventBus().publish(Addresses.QUERY_SESSIONS_CHANGED,
            new QuerySessionChanged(changed.version, changed.id, view.change(changed)));
      }
    } else {
      MemoryAppended message = (MemoryAppended) item;
      applyMessage(message.sequence(), message.item());
    }
  }

  /**
   * Completes once a pull that began after this call has applied everything the stores held: the one running now
   * began too early, so a caller arriving meanwhile waits for the next, which serves every such caller.
   */
  private Future<Void> pulled() {
    if (pulling == null) {
      pulling = pullBoth();
      return pulling;
    }
    if (nextPull == null) {
      nextPull = Promise.promise();
    }
    return nextPull.future();
  }

  private Future<Void> pullBoth() {
    return Future.all(pullFacts(), pullMessages()).<Void>mapEmpty().onComplete(done -> {
      if (held != null && done.succeeded()) {
        List<Object> backlog = held;
        held = null;
        backlog.forEach(this::apply);
      }
      pulling = null;
      if (nextPull != null) {
        Promise<Void> waiting = nextPull;
        nextPull = null;
        pulling = pullBoth();
        pulling.onComplete(waiting);
      }
    });
  }

  private Future<Void> pullFacts() {
    return events.facts(Actor.BROKER, view.factsThrough(), PULL).compose(page -> {
      page.facts().forEach(this::apply);
      return page.hasMore() ? pullFacts() : Future.succeededFuture();
    });
  }

  private Future<Void> pullMessages() {
    return memory.messages(Actor.BROKER, new MemoryStore.MessageFilter(null, null), view.messagesThrough(), PULL)
        .compose(page -> {
          page.items().forEach(item -> applyMessage(-1, item));
          return page.hasMore() ? pullMessages() : Future.succeededFuture();
        });
  }

  /** A message of conversation memory, as every reader gets it: {@code {"timestamp","conversation_id","query_id",...}}. */
  private void applyMessage(long published, byte[] item) {
    String conversation = null;
    String query = null;
    long at = 0;
    long sequence = published;
    try (JsonParser parser = JSON.createParser(item)) {
      parser.nextToken();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        switch (field) {
          case "conversation_id" -> conversation = parser.getValueAsString();
          case "query_id" -> query = parser.getValueAsString();
          case "timestamp" -> at = Instant.parse(parser.getText()).toEpochMilli();
          case "sequence" -> sequence = parser.getLongValue();
          default -> {
            if (value.isStructStart()) {
              parser.skipChildren();
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    view.applyMessage(sequence, conversation, query, at, clock.millis());
  }
}
