package ark.broker;

import ark.broker.testing.Tools;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.EngineFilter.includeEngines;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * {@code mvn verify} passes on a machine with only a JDK, Maven and Node: each test class that needs buildah,
 * mmdebstrap, kubectl or Chromium, run with a PATH that has none of them, skips saying which is missing, and fails
 * nowhere, not even in what runs around its tests (@BeforeAll, @AfterEach...).
 */
class MissingToolsTest {
  private String pathBefore;

  /** By name: the browser tests are their package's own. */
  static Stream<Arguments> classesAndTheirTools() {
    return Stream.of(
        Arguments.of(ImageIT.class.getName(), "buildah"),
        Arguments.of(KubeManifestsTest.class.getName(), "kubectl"),
        Arguments.of("ark.broker.http.DashboardBrowserTest", "Chromium"),
        Arguments.of("ark.broker.http.DashboardOidcSignInBrowserTest", "Chromium"),
        Arguments.of("ark.broker.http.DashboardTokenSignInBrowserTest", "Chromium"));
  }

  @BeforeEach
  void hideTheTools(@TempDir Path emptyDirectory) {
    pathBefore = System.getProperty(Tools.PATH_PROPERTY);
    System.setProperty(Tools.PATH_PROPERTY, emptyDirectory.toString());
  }

  @AfterEach
  void showThemAgain() {
    if (pathBefore == null) {
      System.clearProperty(Tools.PATH_PROPERTY);
    } else {
      System.setProperty(Tools.PATH_PROPERTY, pathBefore);
    }
  }

  @ParameterizedTest
  @MethodSource("classesAndTheirTools")
  void withoutItsToolATestClassSkipsSayingWhyAndFailsNowhere(String testClass, String tool) {
    assumeTrue(!tool.equals("Chromium") || System.getenv("CHROMIUM") == null,
        "CHROMIUM names a Chromium outside the PATH");
    Outcomes outcomes = new Outcomes();

    LauncherFactory.create().execute(request().selectors(selectClass(testClass))
        .filters(includeEngines("junit-jupiter")).build(), outcomes);

    assertThat(outcomes.failures).as("what failed").isEmpty();
    assertThat(outcomes.skipReasons).as("why tests were skipped").isNotEmpty()
        .allSatisfy(reason -> assertThat(reason).contains(tool).contains("not installed"));
  }

  /** What the launched tests did: the reasons of those skipped (aborted by an assumption), and those that failed. */
  private static final class Outcomes implements TestExecutionListener {
    final List<String> skipReasons = new ArrayList<>();
    final List<String> failures = new ArrayList<>();

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
      skipReasons.add(reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
      String message = result.getThrowable().map(String::valueOf).orElse("");
      switch (result.getStatus()) {
        case ABORTED -> skipReasons.add(message);
        case FAILED -> failures.add(test.getDisplayName() + ": " + message);
        case SUCCESSFUL -> { }
      }
    }
  }
}
