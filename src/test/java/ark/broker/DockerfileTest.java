package ark.broker;

import ark.broker.testing.BrokerProcess;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Dockerfile builds from this repository as it is: every file it copies from the build context exists and
 * gets past .dockerignore (a build fails at its first step otherwise), its base images are build arguments with
 * defaults, and its entrypoint is in exec form, so the JVM is process 1 and receives the SIGTERM that drains it, with
 * options this JDK's JVM starts with.
 * Runs everywhere; {@code ImageIT} builds and runs the image for real where the machine can.
 */
class DockerfileTest {
  private static final Path DOCKERFILE = Path.of("Dockerfile");
  private static final Path DOCKERIGNORE = Path.of(".dockerignore");

  @Test
  void everyFileTheDockerfileCopiesFromTheContextGetsPastDockerignore() throws IOException {
    Dockerignore ignore = Dockerignore.read(DOCKERIGNORE);
    List<String> sources = instructions().stream()
        .filter(line -> line.startsWith("COPY ") || line.startsWith("ADD "))
        .filter(line -> !line.contains("--from="))
        .flatMap(line -> sources(line).stream()).toList();

    assertThat(sources).contains("pom.xml", "src/main", "scripts/cds-archive.sh");
    for (String source : sources) {
      Path path = Path.of(source);
      assertThat(path).as("%s, copied by the Dockerfile", source).exists();
      try (Stream<Path> files = Files.walk(path)) {
        List<String> ignored = files.filter(Files::isRegularFile).map(Path::toString)
            .filter(file -> !ignore.admits(file)).toList();
        assertThat(ignored).as("files of %s that .dockerignore keeps out of the build", source).isEmpty();
      }
    }
  }

  @Test
  void theBaseImagesAreBuildArgumentsWithDefaults() throws IOException {
    List<String> instructions = instructions();
    List<String> froms = instructions.stream().filter(line -> line.startsWith("FROM ")).toList();

    assertThat(froms).hasSize(2).allSatisfy(from -> assertThat(from).matches("FROM \\$\\{[A-Z_]+}( AS \\w+)?"));
    for (String from : froms) {
      String argument = from.substring(from.indexOf("${") + 2, from.indexOf('}'));
      assertThat(instructions.subList(0, instructions.indexOf(froms.get(0))))
          .as("ARG %s with a default before the first FROM", argument)
          .anySatisfy(line -> assertThat(line).matches("ARG " + argument + "=\\S+"));
    }
  }

  @Test
  void theEntrypointIsExecFormSoTheJvmReceivesSigterm() throws IOException {
    assertThat(instructions()).filteredOn(line -> line.startsWith("ENTRYPOINT ")).singleElement().asString()
        .startsWith("ENTRYPOINT [\"java\"");
  }

  @Test
  void theJvmStartsWithTheEntrypointsOptionsAndTheShippedOnesFromTheirFile() throws Exception {
    List<String> instructions = instructions();
    String entrypoint = instructions.stream().filter(line -> line.startsWith("ENTRYPOINT ")).findFirst().orElseThrow();
    List<String> options = Arrays.stream(entrypoint.substring(entrypoint.indexOf('[') + 1, entrypoint.lastIndexOf(']'))
            .split(",")).map(word -> word.strip().replace("\"", ""))
        .filter(word -> (word.startsWith("-X") && !word.startsWith("-XX:SharedArchiveFile=")) || word.startsWith("@"))
        .map(word -> word.startsWith("@") ? "@" + copiedTo(instructions, word.substring(1)) : word).toList();

    assertThat(options).contains("@" + BrokerProcess.JVM_OPTIONS);
    assertThat(JvmOptionsCheck.finalFlags(options)).containsPattern("ExitOnOutOfMemoryError\\s+= true ")
        .containsPattern("TrimNativeHeapInterval\\s+= [1-9]").containsPattern("FreqInlineSize\\s+= 100 ")
        .containsPattern("Tier3InvocationThreshold\\s+= 2000 ").containsPattern("SegmentedCodeCache\\s+= false ");
  }

  /** The file of the build context that a COPY puts at {@code destination} in the image. */
  private static String copiedTo(List<String> instructions, String destination) {
    return instructions.stream().filter(line -> line.startsWith("COPY ") && !line.contains("--from"))
        .filter(line -> line.endsWith(" " + destination)).map(line -> sources(line).get(0)).findFirst()
        .orElseThrow(() -> new AssertionError("no COPY puts a file at " + destination));
  }

  @Test
  void dockerignoreFollowsDockersRules() {
    Dockerignore ignore = new Dockerignore(List.of("*", "!conf/", "!src/main/", "src/main/**/*.tmp", "!scripts/run.sh"));

    assertThat(ignore.admits("conf/broker.json")).as("inside an admitted directory").isTrue();
    assertThat(ignore.admits("src/main/java/A.java")).isTrue();
    assertThat(ignore.admits("src/main/java/a.tmp")).as("a later pattern wins").isFalse();
    assertThat(ignore.admits("scripts/run.sh")).as("one file of an excluded directory").isTrue();
    assertThat(ignore.admits("scripts/other.sh")).isFalse();
    assertThat(ignore.admits("src/test/T.java")).isFalse();
    assertThat(ignore.admits("README.md")).isFalse();
  }

  /** The Dockerfile's instructions, continuation lines joined, comments left out. */
  private static List<String> instructions() throws IOException {
    List<String> instructions = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : Files.readAllLines(DOCKERFILE)) {
      String trimmed = line.strip();
      if (trimmed.startsWith("#") || (trimmed.isEmpty() && current.isEmpty())) {
        continue;
      }
      boolean continues = trimmed.endsWith("\\");
      current.append(continues ? trimmed.substring(0, trimmed.length() - 1) : trimmed).append(' ');
      if (!continues) {
        instructions.add(current.toString().strip().replaceAll("\\s+", " "));
        current.setLength(0);
      }
    }
    return instructions;
  }

  /** The sources of a COPY or ADD: every argument but the flags and the destination. */
  private static List<String> sources(String instruction) {
    List<String> arguments = Arrays.stream(instruction.split(" ")).skip(1).filter(word -> !word.startsWith("--")).toList();
    return arguments.subList(0, arguments.size() - 1);
  }

  /**
   * The rules of a .dockerignore as Docker applies them: each line a pattern (Go's filepath.Match, with {@code **}
   * for any number of directories), {@code !} admitting again what an earlier line excluded; a path is excluded if
   * the last line that matches it or one of its parent directories is not an exception.
   */
  record Dockerignore(List<String> lines) {
    static Dockerignore read(Path file) throws IOException {
      return new Dockerignore(Files.readAllLines(file).stream().map(String::strip)
          .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList());
    }

    boolean admits(String path) {
      boolean excluded = false;
      for (String line : lines) {
        boolean exception = line.startsWith("!");
        String pattern = (exception ? line.substring(1) : line).strip().replaceAll("^/+|/+$", "");
        if (matchesOrParentMatches(pattern, Path.of(path))) {
          excluded = !exception;
        }
      }
      return !excluded;
    }

    private static boolean matchesOrParentMatches(String pattern, Path path) {
      PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
      for (int names = 1; names <= path.getNameCount(); names++) {
        if (matcher.matches(path.subpath(0, names))) {
          return true;
        }
      }
      return false;
    }
  }
}
