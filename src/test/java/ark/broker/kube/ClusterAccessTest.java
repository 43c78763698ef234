package ark.broker.kube;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** When the broker talks to Kubernetes at all, and how it backs off when the API fails. */
class ClusterAccessTest {
  @TempDir
  Path dir;

  private static KubeSettings settings(String enabled, String kubeconfig) throws Exception {
    return settings(new JsonObject().put("enabled", enabled).put("kubeconfig", kubeconfig));
  }

  /** conf/broker.json's kube section with {@code overrides} merged in, as the broker reads it. */
  private static KubeSettings settings(JsonObject overrides) throws Exception {
    JsonObject defaults = new JsonObject(Files.readString(Path.of("conf/broker.json"))).getJsonObject("kube");
    return KubeSettings.from(defaults.mergeIn(overrides));
  }

  private Path existing(String name) throws Exception {
    return Files.writeString(dir.resolve(name), "");
  }

  @Test
  void autoIsOffWithoutAServiceAccountOrAKubeconfig() throws Exception {
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
  void aKubeconfigThatIsNamedButMissingTurnsAutoOffAndFailsTrue() throws Exception {
    String missing = dir.resolve("missing").toString();

    assertThat(ClusterAccess.decide(settings("auto", missing), dir.resolve("token"), List.of()).on()).isFalse();
    assertThatThrownBy(() -> ClusterAccess.decide(settings("true", missing), dir.resolve("token"), List.of()))
        .hasMessageContaining("kube.kubeconfig names " + missing);
  }

  @Test
  void settingsRejectAnUnknownModeAndRetriesDoubleUpToTheMaximum() throws Exception {
    assertThatThrownBy(() -> settings("maybe", "")).hasMessageContaining("kube.enabled must be auto, true or false");
    assertThatThrownBy(() -> settings(new JsonObject().put("retryInitialMillis", 100).put("retryMaxMillis", 50)))
        .hasMessageContaining("kube.retryMaxMillis at least kube.retryInitialMillis");

    KubeSettings settings = settings(new JsonObject().put("namespaces", new JsonArray().add("a").add(" "))
        .put("retryInitialMillis", 100).put("retryMaxMillis", 1000));
    assertThat(settings.namespaces()).containsExactly("a");
    // Jittered: each wait is drawn from the upper half of one that doubles up to the maximum.
    Map<Integer, Long> ceilings = Map.of(1, 100L, 2, 200L, 3, 400L, 4, 800L, 5, 1000L, 30, 1000L);
    ceilings.forEach((failures, ceiling) -> assertThat(settings.retry().delayMillis(failures))
        .as("after %d failures", failures).isBetween(ceiling / 2, ceiling));
  }
}
