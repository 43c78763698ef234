package ark.broker.channel;

/** An inbound request refused, with the HTTP status to answer its sender. */
public final class InboundProblem extends RuntimeException {
  public final int status;

  public InboundProblem(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }
}
