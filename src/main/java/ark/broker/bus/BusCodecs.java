package ark.broker.bus;

import io.vertx.core.eventbus.EventBus;

import java.util.List;

/** Registers the codecs of every message type once per Vert.x instance. */
public final class BusCodecs {
  private static final List<Class<?>> TYPES = List.of(
      BusContract.Call.class, BusContract.Result.class, Messages.QuestionChange.class, Messages.WorkerStatus.class,
      Messages.SessionRecord.class, Messages.InboundRequest.class, Messages.InboundResponse.class,
      Messages.Draining.class, Messages.MemoryAppended.class,
      Messages.StreamChunk.class, Messages.StreamEnded.class,
      Messages.EventAppended.class, Messages.SpanAppended.class, Messages.QuerySessionChanged.class,
      SessionFact.Activity.class, SessionFact.QueryAttached.class, SessionFact.QueryForgotten.class,
      SessionFact.Purged.class);

  private BusCodecs() {
  }

  public static void register(EventBus bus) {
    for (Class<?> type : TYPES) {
      registerOne(bus, type);
    }
  }

  private static <T> void registerOne(EventBus bus, Class<T> type) {
    bus.registerDefaultCodec(type, new LocalCodec<>(type));
  }
}
