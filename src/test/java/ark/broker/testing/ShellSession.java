package ark.broker.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One bash, fed command after command as a person types them in a terminal: variables and background jobs live on
 * from one command to the next. What it prints on standard output is kept as one text (standard error apart, for
 * when something fails), and each command's exit status is read from a marker line printed after it.
 */
public final class ShellSession implements AutoCloseable {
  private static final String MARKER = "__ark_documented_command__";

  private final Process bash;
  private final Writer input;
  /** Standard output, line by line, without the markers; guarded by this. */
  private final List<String> printed = new ArrayList<>();
  private final List<Integer> statuses = new ArrayList<>();
  private final StringBuilder errors = new StringBuilder();

  public ShellSession(Path directory, Map<String, String> environment) throws IOException {
    ProcessBuilder builder = new ProcessBuilder("bash", "--noprofile", "--norc").directory(directory.toFile());
    builder.environment().putAll(environment);
    bash = builder.start();
    input = new java.io.OutputStreamWriter(bash.getOutputStream(), StandardCharsets.UTF_8);
    read(bash.getInputStream(), true);
    read(bash.getErrorStream(), false);
  }

  private void read(InputStream stream, boolean output) {
    Thread reader = new Thread(() -> {
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          synchronized (this) {
            if (!output) {
              errors.append(line).append('\n');
            } else if (line.startsWith(MARKER)) {
              statuses.add(Integer.parseInt(line.substring(MARKER.length()).strip()));
            } else {
              printed.add(line);
            }
            notifyAll();
          }
        }
      } catch (IOException ended) {
        // the shell is gone: nothing more to read
      }
    }, "shell-" + (output ? "out" : "err"));
    reader.setDaemon(true);
    reader.start();
  }

  /** Runs {@code command} to its end and returns its exit status. */
  public int run(String command, Duration timeout) throws Exception {
    int count = send(command);
    await(session -> session.statuses.size() > count, timeout, "the command to finish: " + command);
    synchronized (this) {
      return statuses.get(count);
    }
  }

  /** Starts {@code command} (which ends with {@code &}) and returns once it printed a first line. */
  public void start(String command, Duration timeout) throws Exception {
    int before;
    synchronized (this) {
      before = (int) printed.stream().filter(line -> !line.isEmpty()).count();
    }
    run(command, timeout);
    await(session -> session.printed.stream().filter(line -> !line.isEmpty()).count() > before, timeout,
        "the background command to print something: " + command);
  }

  private int send(String command) throws IOException {
    int count;
    synchronized (this) {
      count = statuses.size();
    }
    // The newline first: the command's output may not end with one.
    input.write(command + "\nprintf '\\n%s %s\\n' " + MARKER + " \"$?\"\n");
    input.flush();
    return count;
  }

  /** Waits until {@code condition} holds for what was printed, which it is given each time more is. */
  public synchronized boolean awaitPrinted(Predicate<String> condition, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.test(printed())) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  private synchronized void await(Predicate<ShellSession> condition, Duration timeout, String what) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.test(this)) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || !bash.isAlive()) {
        throw new AssertionError("waited " + timeout + " for " + what + "\n--- printed:\n" + printed()
            + "\n--- on standard error:\n" + errors);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /** Everything printed on standard output so far. */
  public synchronized String printed() {
    return String.join("\n", printed);
  }

  public synchronized String errors() {
    return errors.toString();
  }

  /** Ends the background jobs, then the shell. */
  @Override
  public void close() throws Exception {
    try {
      input.write("kill $(jobs -p) 2>/dev/null; exit 0\n");
      input.flush();
    } catch (IOException gone) {
      // the shell has ended already
    }
    if (!bash.waitFor(10, TimeUnit.SECONDS)) {
      bash.destroyForcibly();
    }
  }
}
