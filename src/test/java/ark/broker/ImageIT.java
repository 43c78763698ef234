package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.Tools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The image builds from the Dockerfile as it is and the broker runs from it: built for real without a Docker
 * daemon, by buildah ({@code --isolation chroot}, the vfs storage driver), then started from the image as its
 * entrypoint says, as its user, until /readyz answers 200; asked to stop, it exits 0. Registry images cannot be
 * pulled here, so the Dockerfile's base images (build arguments) are one assembled from Debian packages by
 * mmdebstrap (a JDK, Maven, useradd), kept between runs in buildah's store under {@link #STORE}, which is named
 * by a hash of what goes into it. Skips, saying why, where the machine cannot build images (no buildah or
 * mmdebstrap, not root); {@code DockerfileTest} checks the Dockerfile against .dockerignore everywhere.
 */
class ImageIT {
  /** buildah's storage of its own for this test: outside target/, so the base survives clean builds and clones. */
  private static final Path STORE = Path.of("/var/tmp/ark-broker-image-test");
  private static final List<String> BASE_PACKAGES = List.of("openjdk-17-jdk-headless", "maven", "passwd");
  private static final String BASE_NAME = "localhost/ark-broker-test-base";
  /** This machine's Java trust store: Maven inside the build reaches Maven Central as this machine's Maven does. */
  private static final Path TRUST_STORE = Path.of("/etc/ssl/certs/java/cacerts");
  private static final Duration BOOTSTRAP_TIMEOUT = Duration.ofMinutes(20);
  private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(20);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String image = "localhost/ark-broker-test:" + UUID.randomUUID().toString().substring(0, 8);
  private String container;
  /** Set once a build has begun: only then is there anything of this run's in buildah's store to remove. */
  private boolean built;

  @BeforeEach
  void canBuildImages() throws Exception {
    Tools.assumeOnPath("buildah", "Debian: apt-get install buildah; .ci/run does it");
    Tools.assumeOnPath("mmdebstrap", "Debian: apt-get install mmdebstrap; .ci/run does it");
    assumeTrue(Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid")),
        "building images with buildah's chroot isolation needs root");
  }

  @AfterEach
  void removeWhatThisRunMade() throws Exception {
    if (!built) {
      return;
    }
    if (container != null) {
      buildah(Duration.ofMinutes(2), "rm", container);
    }
    // By name: the base stays for the next run, and nothing else of the store is touched.
    if (images().contains(image)) {
      buildah(Duration.ofMinutes(2), "rmi", image);
    }
  }

  @Test
  void theImageBuildsFromTheDockerfileAndTheBrokerRunsFromIt() throws Exception {
    String base = baseImage();
    int trainingPort = twoFreePorts();
    List<String> build = new ArrayList<>(List.of("bud", "--isolation", "chroot", "--pull=never", "--layers=false",
        "--build-arg", "BUILD_IMAGE=" + base, "--build-arg", "RUNTIME_IMAGE=" + base,
        // The build shares this machine's network: its CDS training broker must not collide with anything here.
        "--build-arg", "CDS_TRAINING_PORT=" + trainingPort));
    if (Files.isRegularFile(TRUST_STORE)) {
      build.addAll(List.of("--volume", TRUST_STORE + ":" + TRUST_STORE + ":ro"));
    }
    build.addAll(List.of("-f", "Dockerfile", "-t", image, "."));
    built = true;
    buildah(BUILD_TIMEOUT, build.toArray(String[]::new));

    JsonNode config = JSON.readTree(buildah(Duration.ofMinutes(1), "inspect", "--type", "image", image))
        .path("OCIv1").path("config");
    assertThat(config.path("User").asText()).isEqualTo("10001:10001");
    List<String> entrypoint = new ArrayList<>();
    config.path("Entrypoint").forEach(argument -> entrypoint.add(argument.asText()));
    assertThat(entrypoint).first().isEqualTo("java");

    container = buildah(Duration.ofMinutes(2), "from", "--pull=never", image).strip();
    int httpPort = BrokerProcess.freePort();
    List<String> run = buildahCommand("run", "--isolation", "chroot",
        // The image listens on every address; on this machine's network the test keeps it to loopback.
        "--env", "HTTP_HOST=127.0.0.1", "--env", "MCP_HOST=127.0.0.1",
        "--env", "HTTP_PORT=" + httpPort, "--env", "MCP_PORT=" + BrokerProcess.freePort(),
        "--env", "KUBE_ENABLED=false", "--env", "SHUTDOWN_DELAY_SECONDS=0", container, "--");
    run.addAll(entrypoint);
    Path output = Files.createTempFile(Files.createDirectories(Path.of("target/test-logs")), "image-", ".out");
    Process broker = command(run).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    try {
      awaitReady(URI.create("http://127.0.0.1:" + httpPort + "/readyz"), broker, output);
      ProcessHandle java = broker.descendants().filter(process -> process.info().command()
          .map(command -> command.endsWith("/java")).orElse(false)).findFirst().orElseThrow();
      assertThat(Files.readString(Path.of("/proc", Long.toString(java.pid()), "status")))
          .as("the broker runs as the image's unprivileged user").containsPattern("Uid:\\s+10001\\s");

      java.destroy();
      assertThat(broker.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(broker.exitValue()).as(Files.readString(output)).isZero();
      assertThat(Files.readString(output)).contains("Ark Broker started: data in /data").contains("Ark Broker stopped in");
    } finally {
      broker.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  /**
   * The base image, made once per package list: mmdebstrap installs the packages from this machine's apt sources
   * into a tarball, which becomes an image; older bases of this test leave the store.
   */
  private String baseImage() throws Exception {
    String suite = Files.readAllLines(Path.of("/etc/os-release")).stream().filter(line -> line.startsWith("VERSION_CODENAME="))
        .map(line -> line.substring(line.indexOf('=') + 1)).findFirst().orElse("bookworm");
    String tag = BASE_NAME + ":" + hash(suite + " " + String.join(",", BASE_PACKAGES));
    if (images().contains(tag)) {
      return tag;
    }
    for (String old : images()) {
      if (old.startsWith(BASE_NAME + ":")) {
        buildah(Duration.ofMinutes(2), "rmi", old);
      }
    }
    Path tarball = Files.createDirectories(STORE).resolve("base-" + UUID.randomUUID() + ".tar");
    try {
      List<String> bootstrap = new ArrayList<>(List.of(Tools.path("mmdebstrap"), "--variant=minbase",
          "--include=" + String.join(",", BASE_PACKAGES), suite, tarball.toString()));
      sources().ifPresent(sources -> bootstrap.add(sources.toString()));
      run(command(bootstrap), BOOTSTRAP_TIMEOUT);
      String scratch = buildah(Duration.ofMinutes(1), "from", "scratch").strip();
      try {
        buildah(Duration.ofMinutes(5), "add", scratch, tarball.toString(), "/");
        buildah(Duration.ofMinutes(1), "config", "--env", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", scratch);
        buildah(Duration.ofMinutes(5), "commit", "--quiet", scratch, tag);
      } finally {
        buildah(Duration.ofMinutes(1), "rm", scratch);
      }
    } finally {
      Files.deleteIfExists(tarball);
    }
    return tag;
  }

  /** The images in this test's store, as name:tag. */
  private static List<String> images() throws Exception {
    return buildah(Duration.ofMinutes(1), "images", "--format", "{{.Name}}:{{.Tag}}").lines().toList();
  }

  /** The apt sources this machine installs from, for the base to come from the same mirror. */
  private static Optional<Path> sources() {
    return Stream.of("/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list").map(Path::of)
        .filter(path -> {
          try {
            return Files.isRegularFile(path) && Files.readString(path).contains("deb");
          } catch (IOException e) {
            return false;
          }
        }).findFirst();
  }

  private static String buildah(Duration timeout, String... arguments) throws Exception {
    return run(command(buildahCommand(arguments)), timeout);
  }

  /** buildah on this test's own store, with the vfs driver (no overlay file system needed). */
  private static List<String> buildahCommand(String... arguments) {
    List<String> command = new ArrayList<>(List.of(Tools.path("buildah"), "--root", STORE.resolve("storage").toString(),
        "--runroot", STORE.resolve("run").toString(), "--storage-driver", "vfs"));
    command.addAll(List.of(arguments));
    return command;
  }

  private static ProcessBuilder command(List<String> command) {
    ProcessBuilder builder = new ProcessBuilder(command);
    // No terminal: mmdebstrap would otherwise read sources from standard input.
    builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    return builder;
  }

  /** Runs to its end within {@code timeout}; returns what it printed, or fails with it. */
  private static String run(ProcessBuilder builder, Duration timeout) throws Exception {
    Path output = Files.createTempFile("image-it-", ".out");
    try {
      Process process = builder.redirectErrorStream(true).redirectOutput(output.toFile()).start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        throw new AssertionError(builder.command() + " did not finish within " + timeout + ":\n" + tail(output));
      }
      String printed = Files.readString(output);
      assertThat(process.exitValue()).as("%s:%n%s", builder.command(), tail(output)).isZero();
      return printed;
    } finally {
      Files.deleteIfExists(output);
    }
  }

  private static String tail(Path output) throws IOException {
    List<String> lines = Files.readAllLines(output);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  private static void awaitReady(URI readyz, Process broker, Path output) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      assertThat(broker.isAlive()).as("the broker in the image is running:%n%s", Files.readString(output)).isTrue();
      try {
        if (http.send(HttpRequest.newBuilder(readyz).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      broker.waitFor(250, TimeUnit.MILLISECONDS);
    }
    throw new AssertionError("the broker in the image was not ready within 120 s:\n" + Files.readString(output));
  }

  /** A port whose next one is free too (the CDS training broker takes both). */
  private static int twoFreePorts() throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      int port = BrokerProcess.freePort();
      try (ServerSocket next = new ServerSocket(port + 1)) {
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IllegalStateException("no two free ports in a row");
  }

  private static String hash(String text) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)))
        .substring(0, 12);
  }
}
