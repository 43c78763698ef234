package ark.broker.memory;

import ark.broker.access.ArkBrokerAccess;
import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.ItemPage;
import ark.broker.bus.ItemTtl;
import ark.broker.bus.MemoryStore;
import ark.broker.bus.Messages.MemoryAppended;
import ark.broker.bus.StoreFailure;
import ark.broker.log.AgingStore;
import ark.broker.log.EventLog;
import ark.broker.log.StoreMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Conversation memory: the only writer of the memory log, and the view of it ({@link Conversations}). A message is
 * acknowledged once durable and applied here; every replica applies the log alike, so any replica serves any read,
 * and a read catches up with the log first, so it sees what another replica acknowledged. Messages leave by age and
 * by bytes, and the log forgets them with its next snapshot.
 */
public final class MemoryVerticle extends VerticleBase implements MemoryStore {
  private static final Logger LOG = LoggerFactory.getLogger(MemoryVerticle.class);

  private final EventLog log;
  private final MemorySettings settings;
  private final Clock clock;
  private final MeterRegistry meters;
  private Conversations view;
  private AgingStore<MemoryRecord, StoredMessage> memory;

  public MemoryVerticle(EventLog log, MemorySettings settings, Clock clock, MeterRegistry meters) {
    this.log = log;
    this.settings = settings;
    this.clock = clock;
    this.meters = meters;
  }

  @Override
  public Future<?> start() {
    view = new Conversations(settings, new StoreMeters(meters, "memory", this, verticle -> verticle.view.size(),
        verticle -> verticle.view.bytes()));
    memory = new AgingStore<>(vertx, log, "memory", MemoryRecord.CODEC, settings.snapshotEveryRecords(),
        settings.readBackTimeoutMillis(), clock, meters, view);
    return memory.open(kept -> vertx.eventBus().publish(Addresses.MEMORY_APPENDED,
        new MemoryAppended(kept.position(), kept.conversationId, kept.item))).map(replayed -> {
          Addresses.MEMORY_STORE.serve(vertx.eventBus(), this);
          LOG.info("Memory ready: {} messages in {} conversations", view.size(), view.conversations().size());
          return null;
        });
  }

  @Override
  public Future<?> stop() {
    return memory.close();
  }

  @Override
  public Future<Void> append(Actor actor, NewMessages messages) {
    return ArkBrokerAccess.guarded(actor, () -> {
      if (messages.messages().size() > settings.maxMessagesPerAppend()) {
        throw new StoreFailure(StoreFailure.Reason.TOO_LARGE, "messages holds " + messages.messages().size()
            + " messages; one request may carry at most " + settings.maxMessagesPerAppend());
      }
      long now = clock.millis();
      long visible = ItemTtl.visibleMillis(messages.ttlSeconds(), settings.maxAgeMillis());
      List<Future<Long>> written = new ArrayList<>(messages.messages().size());
      for (byte[] message : messages.messages()) {
        MemoryRecord.Appended appended = new MemoryRecord.Appended(messages.conversationId(), messages.queryId(), now,
            now + visible, message);
        written.add(memory.append(appended.key(), appended));
      }
      return Future.all(written).mapEmpty();
    });
  }

  @Override
  public Future<ItemPage> messages(Actor actor, MessageFilter filter, long cursor, int limit) {
    return read(actor, () -> view.messages(filter, cursor, limit));
  }

  @Override
  public Future<MemoryStatus> status(Actor actor) {
    return read(actor, view::status);
  }

  @Override
  public Future<List<String>> conversations(Actor actor) {
    return read(actor, view::conversations);
  }

  @Override
  public Future<Void> deleteConversation(Actor actor, String conversationId) {
    return write(actor, new MemoryRecord.ConversationDeleted(conversationId, clock.millis()));
  }

  @Override
  public Future<Void> deleteQueryMessages(Actor actor, String conversationId, String queryId) {
    return write(actor, new MemoryRecord.QueryDeleted(conversationId, queryId, clock.millis()));
  }

  @Override
  public Future<Void> deleteAll(Actor actor) {
    return write(actor, new MemoryRecord.Purged(clock.millis()));
  }

  /** Writes a deletion, which the log says who made: it forgets what Ark's callers stored. */
  private Future<Void> write(Actor actor, MemoryRecord record) {
    return ArkBrokerAccess.guarded(actor, () -> memory.append(record.key(), record)
        .onSuccess(written -> LOG.info("Memory: {} by {}", record, actor.principal().name())).mapEmpty());
  }

  /** What another replica acknowledged a moment ago is read here too; what has aged out is not. */
  private <T> Future<T> read(Actor actor, Supplier<T> reading) {
    return ArkBrokerAccess.guarded(actor, () -> memory.read(reading));
  }
}
