package ark.broker.http;

import ark.broker.bus.EventStore;
import ark.broker.bus.MemoryStore;
import ark.broker.bus.QuerySessionStore;
import ark.broker.bus.StreamStore;
import ark.broker.bus.TraceStore;

/** The stores of Ark's broker the REST port serves, as clients of their contracts, and how it serves them. */
public record ArkStores(ArkApiSettings settings, MemoryStore memory, StreamStore streams, EventStore events,
                        QuerySessionStore sessions, TraceStore traces) {
}
