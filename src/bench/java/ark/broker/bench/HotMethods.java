package ark.broker.bench;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where a flight recording's CPU samples fall: the methods that were running ("self") and the methods on
 * the stack ("total", each counted once per sample), with their share of all samples. JDK 17's
 * {@code jfr} tool has no {@code view hot-methods}, hence this. Run with
 * {@code java -cp target/test-classes ark.broker.bench.HotMethods broker.jfr [rows] [method]}; with a method
 * ({@code QuestionRoutes.json}), only the samples with that method on the stack count, to see what it spends.
 */
public final class HotMethods {
  public static void main(String[] args) throws Exception {
    Path recording = Path.of(args[0]);
    int rows = args.length > 1 ? Integer.parseInt(args[1]) : 40;
    String under = args.length > 2 ? args[2] : "";
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> total = new HashMap<>();
    Map<String, Integer> threads = new HashMap<>();
    Map<String, Integer> brokerCode = new HashMap<>();
    int samples = 0;
    for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
      if (!event.getEventType().getName().equals("jdk.ExecutionSample") || event.getStackTrace() == null) {
        continue;
      }
      String thread = event.getThread("sampledThread") == null ? null : event.getThread("sampledThread").getJavaName();
      List<RecordedFrame> frames = event.getStackTrace().getFrames();
      if (frames.isEmpty() || frames.stream().noneMatch(frame -> name(frame.getMethod()).contains(under))) {
        continue;
      }
      samples++;
      threads.merge(thread == null ? "?" : thread.replaceAll("-\\d+$", "-N"), 1, Integer::sum);
      self.merge(name(frames.get(0).getMethod()), 1, Integer::sum);
      Set<String> onStack = new HashSet<>();
      for (RecordedFrame frame : frames) {
        onStack.add(name(frame.getMethod()));
      }
      brokerCode.merge(nearestBrokerMethod(frames), 1, Integer::sum);
      for (String method : onStack) {
        total.merge(method, 1, Integer::sum);
      }
    }
    System.out.printf("%d execution samples%n", samples);
    print("threads", threads, samples, rows);
    print("self (the method running)", self, samples, rows);
    print("total (the method anywhere on the stack)", total, samples, rows);
    print("the broker's own method nearest the top of the stack (else the running method's package)", brokerCode,
        samples, rows);
  }

  /** Which of the broker's methods the sample's work is for: the libraries it calls are charged to it. */
  private static String nearestBrokerMethod(List<RecordedFrame> frames) {
    for (RecordedFrame frame : frames) {
      if (frame.getMethod().getType().getName().startsWith("ark.broker.")) {
        return name(frame.getMethod());
      }
    }
    String type = frames.get(0).getMethod().getType().getName();
    String[] parts = type.split("\\.");
    return parts.length > 3 ? String.join(".", parts[0], parts[1], parts[2], parts[3]) + ".*" : type;
  }

  private static String name(RecordedMethod method) {
    return method.getType().getName() + "." + method.getName();
  }

  private static void print(String title, Map<String, Integer> counts, int samples, int rows) {
    System.out.printf("%n%s%n", title);
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(rows)
        .forEach(e -> System.out.printf("%6.2f%%  %6d  %s%n", 100.0 * e.getValue() / samples, e.getValue(), e.getKey()));
  }

  private HotMethods() {
  }
}
