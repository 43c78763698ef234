package ark.broker.channel;

/** An inbound request refused, with the HTTP status to answer its sender. */
final class InboundProblem extends RuntimeException {
  final int status;

  InboundProblem(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }
}
