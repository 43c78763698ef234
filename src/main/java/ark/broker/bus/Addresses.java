package ark.broker.bus;

/**
 * Every event-bus address in the broker. Requests go to the store, which replies; changes are
 * published by the store for whoever listens.
 */
public final class Addresses {
  /** {@link Messages.CreateQuestion} -> {@link Messages.Created}. */
  public static final String QUESTIONS_CREATE = "questions.create";
  /** {@link Messages.AnswerQuestion} -> the answered question. */
  public static final String QUESTIONS_ANSWER = "questions.answer";
  /** {@link Messages.CancelQuestion} -> the cancelled question. */
  public static final String QUESTIONS_CANCEL = "questions.cancel";
  /** {@link Messages.GetQuestion} -> the question. */
  public static final String QUESTIONS_GET = "questions.get";
  /** {@link Messages.ListQuestions} -> a page of questions. */
  public static final String QUESTIONS_LIST = "questions.list";
  /** {@link Messages.ChangesSince} -> {@link Messages.Changes}, or failure {@link StoreFailure.Reason#GONE}. */
  public static final String QUESTIONS_HISTORY = "questions.history";
  /** Published {@link Messages.QuestionChange}, in log order, after the change is durable. */
  public static final String QUESTIONS_CHANGED = "questions.changed";
  /** {@link Messages.RecordDelivery} -> the question with the delivery recorded (replacing one with the same channel and ref). */
  public static final String QUESTIONS_DELIVER = "questions.deliver";
  /** Any body -> {@link Messages.StoreStatus}; no handler means the store has not finished replaying. */
  public static final String STORE_STATUS = "store.status";

  /**
   * {@link Messages.StartSession} -> true, once the new session is durable and applied; or failure
   * {@link StoreFailure.Reason#FORBIDDEN} beyond the limit of sessions in total, or
   * {@link StoreFailure.Reason#TOO_MANY_REQUESTS} beyond its owner's budget of sessions.
   */
  public static final String SESSIONS_START = "sessions.start";
  /**
   * {@link Messages.SessionRecord} -> true, once the session is durable and applied; or failure
   * {@link StoreFailure.Reason#FORBIDDEN} for a new session beyond the limit of sessions.
   */
  public static final String SESSIONS_SAVE = "sessions.save";
  /** {@link Messages.GetSession} -> {@link Messages.SessionRecord}, or failure {@link StoreFailure.Reason#NOT_FOUND}. */
  public static final String SESSIONS_GET = "sessions.get";
  /** {@link Messages.DeleteSession} -> true, once the deletion is durable. */
  public static final String SESSIONS_DELETE = "sessions.delete";
  /** Any body -> null while the session log takes writes, else why it does not (the store's status includes it). */
  public static final String SESSIONS_STATUS = "sessions.status";
  /** Published {@link Messages.SessionRecord} after every change; a null document means the session ended. */
  public static final String SESSIONS_CHANGED = "sessions.changed";
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

  /** Delivery header carrying the HTTP or MCP request id, so every room logs the same id. */
  public static final String REQUEST_ID_HEADER = "requestId";

  private Addresses() {
  }
}
