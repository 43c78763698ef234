package ark.broker.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** The Chromium the browser tests drive: the one {@code CHROMIUM} names, or {@code chromium} on the PATH (Debian's). */
public final class Chromium {
  private Chromium() {
  }

  /**
   * Its path; skips the test (rather than failing it) where no Chromium is installed, saying so in the build's
   * output: surefire keeps a test's own output in a file and a quiet build lists no skipped tests, so the reason is
   * written to the process's real standard error, which the build shows.
   */
  public static Path assumeInstalled() {
    Optional<Path> chromium = Optional.ofNullable(System.getenv("CHROMIUM")).map(Path::of).filter(Files::isExecutable)
        .or(() -> Tools.find("chromium"));
    if (chromium.isEmpty()) {
      String reason = "Chromium is not installed: no chromium on the PATH, nor CHROMIUM naming one "
          + "(.ci/run installs Debian's chromium)";
      PrintStream console = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
      console.println("[SKIPPED] browser test " + StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
          .getCallerClass().getSimpleName() + ": " + reason);
      Assumptions.abort(reason);
    }
    return chromium.get();
  }
}
