package ark.broker.store;

/**
 * What one principal may hold and do at once; {@code 0} in a field means no limit.
 *
 * @param maxPendingQuestions questions it sent that are still pending
 * @param createsPerMinute    questions it may create in a minute (on each replica)
 * @param maxMcpSessions      MCP sessions it initialized that still exist
 */
record Budget(int maxPendingQuestions, int createsPerMinute, int maxMcpSessions) {
  static final Budget UNLIMITED = new Budget(0, 0, 0);

  /** "1 pending question", "2 pending questions": how refusals name a limit. */
  static String count(int n, String what) {
    return n + " " + what + (n == 1 ? "" : "s");
  }

  /** Whether {@code count} things already use up a limit of {@code max} (0: never). */
  static boolean full(int max, long count) {
    return max > 0 && count >= max;
  }
}
