package ark.broker.http;

import io.vertx.ext.web.RoutingContext;

/**
 * The query parameters of Ark's broker routes, checked as upstream checks them and refused with its codes and
 * words ({@code "cursor: Too small: expected number to be >=0"}, {@code "limit cannot exceed 1000"}), so a caller
 * that reads them is not surprised.
 */
final class ArkQuery {
  /** A page holds this many items when the caller names no limit, and at most {@link #MAX_LIMIT}. */
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 1000;

  private ArkQuery() {
  }

  /** {@code "true"} or {@code "false"}, or null when absent. */
  static Boolean flag(RoutingContext ctx, String name) {
    String value = ctx.queryParams().get(name);
    if (value == null) {
      return null;
    }
    if (!value.equals("true") && !value.equals("false")) {
      throw ArkProblem.invalid(name + ": Invalid option: expected one of \"true\"|\"false\"");
    }
    return value.equals("true");
  }

  static boolean watching(RoutingContext ctx) {
    return Boolean.TRUE.equals(flag(ctx, "watch"));
  }

  /** A whole number at least 0 ({@code cursor}, an exclusive sequence), or null when absent. */
  static Long nonNegative(RoutingContext ctx, String name) {
    String value = ctx.queryParams().get(name);
    if (value == null) {
      return null;
    }
    long number;
    try {
      number = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw ArkProblem.invalid(name + ": Invalid input: expected number, received NaN");
    }
    if (number < 0) {
      throw ArkProblem.invalid(name + ": Too small: expected number to be >=0");
    }
    return number;
  }

  /** The cursor of a read: items with a sequence above it; 0 when absent. */
  static long cursor(RoutingContext ctx) {
    Long cursor = nonNegative(ctx, "cursor");
    return cursor == null ? 0 : cursor;
  }

  /** The page size a read asks for, between 1 and {@link #MAX_LIMIT}, or null when absent. */
  static Integer limit(RoutingContext ctx) {
    String value = ctx.queryParams().get("limit");
    if (value == null) {
      return null;
    }
    int limit;
    try {
      limit = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw ArkProblem.pagination("limit must be a positive integer");
    }
    if (limit < 1) {
      throw ArkProblem.pagination("limit must be a positive integer");
    }
    if (limit > MAX_LIMIT) {
      throw ArkProblem.pagination("limit cannot exceed " + MAX_LIMIT);
    }
    return limit;
  }

  /** One of {@code options}, or null when absent; anything else is refused as upstream's enums are. */
  static String oneOf(RoutingContext ctx, String name, String... options) {
    String value = ctx.queryParams().get(name);
    if (value == null || java.util.Arrays.asList(options).contains(value)) {
      return value;
    }
    throw ArkProblem.invalid(name + ": Invalid option: expected one of "
        + String.join("|", java.util.Arrays.stream(options).map(option -> "\"" + option + "\"").toList()));
  }

  /** The page size a paginated read asks for: its {@code limit}, or {@link #DEFAULT_LIMIT}. */
  static int pageLimit(RoutingContext ctx) {
    Integer limit = limit(ctx);
    return limit == null ? DEFAULT_LIMIT : limit;
  }

  /** A text parameter, null when absent; an empty one is refused. */
  static String text(RoutingContext ctx, String name) {
    String value = ctx.queryParams().get(name);
    if (value != null && value.isEmpty()) {
      throw ArkProblem.invalid(name + ": Too small: expected string to have >=1 characters");
    }
    return value;
  }
}
