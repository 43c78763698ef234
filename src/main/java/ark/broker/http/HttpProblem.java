package ark.broker.http;

/** A request the REST surface refuses by itself, with the status to answer. */
final class HttpProblem extends RuntimeException {
  final int status;

  HttpProblem(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }
}
