package ark.broker.bench;

import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code -Dbench.brokerJavaOptions}: JVM options for the broker processes a benchmark starts (a collector, a heap
 * size, a flight recording), passed in {@code JAVA_TOOL_OPTIONS}, which the JVM reads itself, so the process is
 * started exactly as without them.
 */
final class BrokerJavaOptions {
  private BrokerJavaOptions() {
  }

  /** Puts the options, and {@code more} after them, into {@code environment}; nothing when there are none. */
  static void addTo(Map<String, String> environment, String... more) {
    String options = Stream.concat(Stream.of(System.getProperty("bench.brokerJavaOptions", "")), Stream.of(more))
        .map(String::strip).filter(option -> !option.isEmpty()).collect(Collectors.joining(" "));
    if (!options.isEmpty()) {
      environment.put("JAVA_TOOL_OPTIONS", options);
    }
  }
}
