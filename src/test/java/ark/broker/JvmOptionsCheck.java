package ark.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What this JDK's JVM makes of the options a deployment starts the broker with: a JVM that does not know one of
 * them refuses to start, so a pod or container would never come up.
 */
final class JvmOptionsCheck {
  private JvmOptionsCheck() {
  }

  /** The JVM's final flags ({@code -XX:+PrintFlagsFinal}) when started with {@code options}; fails if it will not start. */
  static String finalFlags(List<String> options) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(options);
    command.addAll(List.of("-XX:+PrintFlagsFinal", "-version"));
    Process java = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!java.waitFor(60, TimeUnit.SECONDS) || java.exitValue() != 0) {
      throw new AssertionError("the JVM would not start with " + options + ":\n" + output);
    }
    return output;
  }
}
