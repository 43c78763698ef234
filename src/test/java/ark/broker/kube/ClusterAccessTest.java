package ark.broker.kube;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** When the broker talks to Kubernetes at all, and how it backs off when the API fails. */
class ClusterAccessTest {
  @TempDir
  Path dir;

  private static KubeSettings settings(String enabled, String kubeconfig) {
    return KubeSettings.from(new JsonObject().put("enabled", enabled).put("kubeconfig", kubeconfig));
  }

  private Path existing(String name) throws Exception {
    return Files.writeString(dir.resolve(name), "");
  }

  @Test
  void autoIsOffWithoutAServiceAccountOrAKubeconfig() {
    ClusterAccess.Decision decision = ClusterAccess.decide(settings("auto", ""), dir.resolve("token"),
        List.of(dir.resolve("config").toString()));

    assertThat(decision.on()).isFalse();
    assertThat(decision.reason()).contains("no in-cluster service account and no kubeconfig", "KUBE_ENABLED=true");
  }

  @Test
  void autoIsOnInAPodOrWithAKubeconfig() throws Exception {
    Path token = existing("token");
    Path kubeconfig = existing("config");

    assertThat(ClusterAccess.decide(settings("auto", ""), token, List.of()).reason())
        .isEqualTo("the pod's service account");
    assertThat(ClusterAccess.decide(settings("AUTO", ""), dir.resolve("no-token"), List.of(kubeconfig.toString())).on())
        .isTrue();
  }

  @Test
  void falseIsOffEvenInAPod() throws Exception {
    assertThat(ClusterAccess.decide(settings("false", ""), existing("token"), List.of()).on()).isFalse();
  }

  @Test
  void aKubeconfigThatIsNamedButMissingTurnsAutoOffAndFailsTrue() {
    String missing = dir.resolve("missing").toString();

    assertThat(ClusterAccess.decide(settings("auto", missing), dir.resolve("token"), List.of()).on()).isFalse();
    assertThatThrownBy(() -> ClusterAccess.decide(settings("true", missing), dir.resolve("token"), List.of()))
        .hasMessageContaining("kube.kubeconfig names " + missing);
  }

  @Test
  void settingsRejectAnUnknownModeAndRetriesDoubleUpToTheMaximum() {
    assertThatThrownBy(() -> settings("maybe", "")).hasMessageContaining("kube.enabled must be auto, true or false");

    KubeSettings settings = KubeSettings.from(new JsonObject().put("namespaces", new JsonArray().add("a").add(" "))
        .put("retryInitialMillis", 100).put("retryMaxMillis", 1000));
    assertThat(settings.namespaces()).containsExactly("a");
    assertThat(List.of(1, 2, 3, 4, 5, 30).stream().map(settings::retryDelay).map(Duration::toMillis))
        .containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L);
  }
}
