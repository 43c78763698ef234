package ark.broker.bench;

/**
 * One figure in the form {@link BenchAll} collects from a benchmark's output:
 * {@code RESULT|name|value|target|limited by}. Benchmarks print it next to their prose.
 */
final class ResultLine {
  private ResultLine() {
  }

  static void print(String name, String value, String target, String limit) {
    System.out.println(String.join("|", "RESULT", clean(name), clean(value), clean(target), clean(limit)));
    System.out.flush();
  }

  private static String clean(String text) {
    return text == null || text.isBlank() ? "–" : text.replace('|', '/').replace('\n', ' ');
  }
}
