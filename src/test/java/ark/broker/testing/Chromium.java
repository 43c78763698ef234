package ark.broker.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The Chromium the browser tests drive: Debian's, or the one {@code CHROMIUM} names. */
public final class Chromium {
  public static final Path PATH = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));

  private Chromium() {
  }

  /**
   * Skips the test (rather than failing it) where no Chromium is installed, saying so in the build's output:
   * surefire keeps a test's own output in a file and a quiet build lists no skipped tests, so the reason is
   * written to the process's real standard error, which the build shows.
   */
  public static void assumeInstalled() {
    if (!Files.isExecutable(PATH)) {
      String reason = "no Chromium at " + PATH + " (.ci/run installs Debian's chromium; CHROMIUM names another)";
      PrintStream console = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
      console.println("[SKIPPED] browser test " + StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
          .getCallerClass().getSimpleName() + ": " + reason);
      Assumptions.abort(reason);
    }
  }
}
