package ark.broker.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The programs some tests run (buildah, mmdebstrap, kubectl, Chromium), looked up on the PATH, so a test that needs
 * one skips, saying which and how to install it, where it is missing.
 */
public final class Tools {
  /**
   * The PATH to look in instead of the process's: MissingToolsTest sets it to run those tests as on a machine
   * without the tools, which it could not do to the process's own environment.
   */
  public static final String PATH_PROPERTY = "ark.test.path";

  private Tools() {
  }

  /** The executable {@code tool} on the PATH, if there is one. */
  public static Optional<Path> find(String tool) {
    String path = System.getProperty(PATH_PROPERTY, System.getenv().getOrDefault("PATH", ""));
    return Stream.of(path.split(File.pathSeparator)).filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, tool))
        .filter(Files::isExecutable).findFirst();
  }

  /** Where {@code tool} is, to run it: the PATH that was looked in is the one that runs it. */
  public static String path(String tool) {
    return find(tool).orElseThrow(() -> new IllegalStateException(tool + " is not on the PATH")).toString();
  }

  public static boolean onPath(String tool) {
    return find(tool).isPresent();
  }

  /** Skips the test where {@code tool} is missing; {@code install} says how to get it. */
  public static void assumeOnPath(String tool, String install) {
    Assumptions.assumeTrue(onPath(tool), () -> tool + " is not installed (" + install + ")");
  }
}
