package ark.broker.bus;

import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An answer reaches the agent waiting for it before, or with, the answer's own reply: the surface that took the
 * answer ({@link #handedOver}) replies only once the room whose agents wait (MCP) has handed the change to their
 * streams, as it does every published change, in order, on its own event loop. The answer is durable before
 * either: the store publishes only what its log holds. Both sides of {@link Addresses#WAITING_AGENTS_HANDED_OVER}.
 */
public final class WaitingAgents {
  /**
   * How long an answer's reply waits at most for the agents' room: a room that has not handed the change over by
   * then is stuck on something else, and the person answering should not wait on it.
   */
  static final long MAX_WAIT_MILLIS = 1000;
  private static final DeliveryOptions WAIT = new DeliveryOptions().setSendTimeout(MAX_WAIT_MILLIS);

  /** Changes handed over so far, and the requests waiting for a later one; used only on the room's event loop. */
  private long handedOver = -1;
  private final TreeMap<Long, List<Message<Long>>> waiting = new TreeMap<>();

  /**
   * Completes (never fails) once the agents' room has handed the change at {@code position} to the agents waiting
   * for it, or at once where no such room runs here, or after {@link #MAX_WAIT_MILLIS}.
   */
  public static Future<Void> handedOver(EventBus bus, long position) {
    return bus.request(Addresses.WAITING_AGENTS_HANDED_OVER, position, WAIT).otherwiseEmpty().mapEmpty();
  }

  /** The agents' room: answers the requests of {@link #handedOver} as its changes are handed over. */
  public Future<Void> serve(EventBus bus) {
    return bus.<Long>localConsumer(Addresses.WAITING_AGENTS_HANDED_OVER, request -> {
      if (request.body() <= handedOver) {
        request.reply(null);
      } else {
        waiting.computeIfAbsent(request.body(), position -> new ArrayList<>(1)).add(request);
      }
    }).completion();
  }

  /** Called by the agents' room once every waiting agent's stream has the change at {@code position}. */
  public void handed(long position) {
    handedOver = Math.max(handedOver, position);
    while (!waiting.isEmpty() && waiting.firstKey() <= handedOver) {
      Map.Entry<Long, List<Message<Long>>> due = waiting.pollFirstEntry();
      due.getValue().forEach(request -> request.reply(null));
    }
  }
}
