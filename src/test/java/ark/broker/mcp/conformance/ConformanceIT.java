package ark.broker.mcp.conformance;

import ark.broker.testing.NodeDriven;
import ark.broker.testing.NodeScript;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official MCP conformance suite, every scenario of {@code --suite all}, with no expected-failures
 * file, run by {@code mcp-conformance.sh} against the broker plus the conformance fixtures.
 */
@NodeDriven
class ConformanceIT {
  @TempDir
  Path dataDir;

  @Test
  void everyScenarioPasses() throws Exception {
    Path results = Path.of("target/conformance");
    deleteRecursively(results);
    try (TestBroker broker = TestBroker.start(dataDir, new JsonObject(),
        features -> new ConformanceFixtures().addTo(features))) {
      String url = "http://localhost:" + broker.mcp.getPort() + "/mcp";
      NodeScript.install();
      Path output = Files.createTempFile("conformance-", ".out");
      Process suite = new ProcessBuilder("./mcp-conformance.sh", "--url", url)
          .redirectErrorStream(true).redirectOutput(output.toFile()).start();
      assertThat(suite.waitFor(10, TimeUnit.MINUTES)).as("the suite finishes").isTrue();
      String printed = Files.readString(output);

      assertThat(suite.exitValue()).as(printed).isZero();
      assertThat(printed).containsPattern("Total: \\d+ passed, 0 failed");
    }
    assertThat(checksThatDidNotSucceed(results)).isEmpty();
  }

  private static void deleteRecursively(Path dir) throws Exception {
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
  }

  /** Every check the suite wrote that is neither a success nor information (warnings included). */
  private static List<String> checksThatDidNotSucceed(Path results) throws Exception {
    List<String> problems = new ArrayList<>();
    try (Stream<Path> files = Files.walk(results)) {
      for (Path checks : files.filter(f -> f.getFileName().toString().equals("checks.json")).toList()) {
        JsonArray all = new JsonArray(Files.readString(checks));
        for (Object entry : all) {
          JsonObject check = (JsonObject) entry;
          if (!List.of("SUCCESS", "INFO").contains(check.getString("status"))) {
            problems.add(checks.getParent().getFileName() + ": " + check.getString("id") + " " + check.getString("status")
                + " " + check.getString("errorMessage", ""));
          }
        }
      }
    }
    return problems;
  }
}
