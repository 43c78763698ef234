package ark.broker.bus;

/**
 * Every event-bus address in the broker: the services (each declared by one interface, served by the room
 * that owns it) and the changes published for whoever listens.
 */
public final class Addresses {
  /** The question store: commands and reads; it owns the questions' log. */
  public static final BusContract<QuestionStore> QUESTION_STORE = BusContract.of(QuestionStore.class, "questions");
  /** Published {@link Messages.QuestionChange}, in log order, after the change is durable. */
  public static final String QUESTIONS_CHANGED = "questions.changed";

  /** The MCP session store; it owns the sessions' log. */
  public static final BusContract<McpSessionStore> MCP_SESSION_STORE = BusContract.of(McpSessionStore.class, "sessions");
  /** Published {@link Messages.SessionRecord} after every change; a null document means the session ended. */
  public static final String SESSIONS_CHANGED = "sessions.changed";

  /** Conversation memory (Ark's {@code /messages} and {@code /conversations}); it owns the memory log. */
  public static final BusContract<MemoryStore> MEMORY_STORE = BusContract.of(MemoryStore.class, "memory");
  /** Published {@link Messages.MemoryAppended}, in sequence order, once each message is durable. */
  public static final String MEMORY_APPENDED = "memory.appended";

  /** LLM streams (Ark's {@code /stream}); it owns the streams log. */
  public static final BusContract<StreamStore> STREAM_STORE = BusContract.of(StreamStore.class, "streams");
  /** Published {@link Messages.StreamChunk}, in sequence order, once each chunk or completion is durable. */
  public static final String STREAM_CHUNKS = "streams.chunks";
  /** Published {@link Messages.StreamEnded} when a stream ends for its readers. */
  public static final String STREAM_ENDED = "streams.ended";

  /** Query operation events and the facts of Ark's sessions (Ark's {@code /events}); it owns the events log. */
  public static final BusContract<EventStore> EVENT_STORE = BusContract.of(EventStore.class, "events");
  /** Published {@link Messages.EventAppended}, in sequence order, once each event is durable. */
  public static final String EVENTS_APPENDED = "events.appended";
  /** Published {@link SessionFact}s, in sequence order, once each is durable: what the sessions projection follows. */
  public static final String SESSION_FACTS = "events.facts";

  /** Ark's sessions, the projection of events and messages (Ark's {@code /sessions}); it owns no log. */
  public static final BusContract<QuerySessionStore> QUERY_SESSION_STORE =
      BusContract.of(QuerySessionStore.class, "querysessions");
  /** Published {@link Messages.QuerySessionChanged}, in the order of the facts that changed them. */
  public static final String QUERY_SESSIONS_CHANGED = "querysessions.changed";

  /** OpenTelemetry spans (Ark's {@code /v1/traces} and {@code /traces}); it owns the traces log. */
  public static final BusContract<TraceStore> TRACE_STORE = BusContract.of(TraceStore.class, "traces");
  /** Published {@link Messages.SpanAppended}, in sequence order, once each span is durable. */
  public static final String SPANS_APPENDED = "traces.appended";

  /** Any body -> {@link Messages.WorkerStatus}: whether this process does the once-only work now. */
  public static final String WORKER_STATUS = "worker.status";
  /** Published {@link Messages.WorkerStatus} whenever this process gains or loses the worker role. */
  public static final String WORKER_CHANGED = "worker.changed";

  /**
   * {@link Messages.InboundRequest} -> {@link Messages.InboundResponse}: a request that Slack, GitHub or
   * another channel sent to the REST port, for the channel room to verify and act on; failures carry the
   * HTTP status to answer.
   */
  public static final String CHANNELS_INBOUND = "channels.inbound";

  /**
   * Published {@link Messages.Draining} once the process is asked to stop: /readyz answers 503 from then on, and
   * every response asks its client to reconnect (so to another replica); the surfaces that serve clients are
   * undeployed after {@code shutdown.delaySeconds} and give their running requests the grace it names.
   */
  public static final String BROKER_DRAINING = "broker.draining";

  /**
   * Request with a question's position ({@code Long}), to the room whose agents wait for answers (MCP): replied
   * (no body) once it has handed every change up to that position to its waiting agents' streams
   * ({@link WaitingAgents}).
   */
  public static final String WAITING_AGENTS_HANDED_OVER = "questions.waiting-agents.handed-over";

  /**
   * Published (no body) once the start-up warm-up is done: the surfaces, whose ports were open meanwhile with
   * /readyz and every request answered 503, serve from then on ({@link WarmUpGate}).
   */
  public static final String BROKER_WARMED = "broker.warmed";

  /** Delivery header carrying the HTTP request id of an inbound channel request, so the channel room logs it. */
  public static final String REQUEST_ID_HEADER = "requestId";

  private Addresses() {
  }
}
