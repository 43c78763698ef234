package ark.broker.http;

/**
 * A request to Ark's broker routes refused as upstream's broker refuses it: a status and one of its error codes
 * ({@code VALIDATION_ERROR}, {@code PAGINATION_ERROR}, {@code NOT_FOUND}, ...).
 */
final class ArkProblem extends RuntimeException {
  final int status;
  final String code;

  ArkProblem(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  static ArkProblem invalid(String message) {
    return new ArkProblem(400, "VALIDATION_ERROR", message);
  }

  static ArkProblem pagination(String message) {
    return new ArkProblem(400, "PAGINATION_ERROR", message);
  }

  static ArkProblem notFound(String message) {
    return new ArkProblem(404, "NOT_FOUND", message);
  }
}
