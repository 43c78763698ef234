package ark.broker.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A bench main in a JVM of its own (test classes and the broker jar on its class path), talking over
 * stdin/stdout lines: how load generators stay out of the broker's process and can be pinned or moved.
 */
final class JavaProcess implements AutoCloseable {
  private static final String CLASS_PATH = Path.of("target/test-classes") + File.pathSeparator + Path.of("target/ark-broker.jar");

  private final Process process;
  private final BufferedReader output;
  private final Writer input;

  private JavaProcess(Process process) {
    this.process = process;
    this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  static JavaProcess start(String heap, Class<?> main, String... args) throws IOException {
    return new JavaProcess(new ProcessBuilder(command(heap, main, List.of(args)))
        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
  }

  /** The command line that runs {@code main} in a JVM of its own. */
  static List<String> command(String heap, Class<?> main, List<String> args) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heap, "-cp", CLASS_PATH, main.getName()));
    command.addAll(args);
    return command;
  }

  /** The first line of output starting with {@code word}. */
  String awaitLine(String word) throws IOException {
    for (String line = output.readLine(); line != null; line = output.readLine()) {
      if (line.startsWith(word)) {
        return line;
      }
    }
    throw new IllegalStateException(process.info().command().orElse("process") + " ended before saying '" + word + "'");
  }

  void send(String line) throws IOException {
    input.write(line + "\n");
    input.flush();
  }

  @Override
  public void close() {
    process.destroy();
  }
}
