package ark.broker.testing;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;

/** The Chromium the browser tests drive: Debian's, or the one {@code CHROMIUM} names. */
public final class Chromium {
  public static final Path PATH = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));

  private Chromium() {
  }

  /** Skips the test (rather than failing it) where no Chromium is installed. */
  public static void assumeInstalled() {
    Assumptions.assumeTrue(Files.isExecutable(PATH),
        "no Chromium at " + PATH + " (.ci/run installs Debian's chromium; CHROMIUM names another)");
  }
}
