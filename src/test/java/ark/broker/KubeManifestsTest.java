package ark.broker;

import ark.broker.auth.AuthMode;
import ark.broker.auth.AuthSettings;
import ark.broker.auth.AuthStartup;
import ark.broker.edge.HostPolicy;
import ark.broker.kube.CrdSchema;
import ark.broker.kube.KubeSettings;
import ark.broker.logging.BrokerLogConfigurator;
import ark.broker.testing.TestBroker;
import ark.broker.testing.Tools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The manifests in k8s/ render, parse, and say only what the broker really reads and serves: env names
 * are keys of conf/broker.json (so keys added there later are accepted at once), ports and paths are
 * the ones it listens on.
 */
class KubeManifestsTest {
  private static final Path K8S = Path.of("k8s");
  /** What kubectl apply -k k8s/ applies, and what the overlays build on. */
  private static final Path BASE = K8S.resolve("base");
  private static final Path KAFKA_OVERLAY = K8S.resolve("overlays/kafka");
  private static final Path WAITING_PHASE_OVERLAY = K8S.resolve("overlays/waiting-phase");
  private static final Path STOCK_QUERY_CRD = Path.of("src/test/resources/kube/ark/ark.mckinsey.com_queries.yaml");
  private static final Path DEFAULTS = Path.of("conf/broker.json");
  /** Where the namespace of everything the kustomizations apply is set. */
  private static final Path NAMESPACE = K8S.resolve("namespace/kustomization.yaml");
  private static final String BROKER = "ark-broker";
  private static final String ARK_NAMESPACE = "ark-system";
  /** What Ark's controller looks up when it starts, to find where to send events and spans. */
  private static final String ARK_BROKER_CONFIG_MAP = "ark-config-broker";
  /** Read by the broker's logging and by the JVM, not by the broker's configuration. */
  private static final Set<String> LOGGING_VARIABLES =
      Set.of(BrokerLogConfigurator.LEVEL_VARIABLE, BrokerLogConfigurator.ACCESS_LEVEL_VARIABLE);
  private static final String JVM_VARIABLE = "JAVA_TOOL_OPTIONS";
  /** Ark's default MCP port, until conf/broker.json has mcp.port to compare with. */
  private static final int ARK_MCP_PORT = 8081;
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static KubernetesClient parser;

  @BeforeAll
  static void parser() {
    // Never connects: only load() is used, to parse manifests the way kubectl sends them.
    parser = new KubernetesClientBuilder().withConfig(Config.empty()).build();
  }

  @AfterAll
  static void close() {
    parser.close();
  }

  @Test
  void theBaseRendersOneReplicaOnItsOwnVolumeAndNeedsNoKafka() throws Exception {
    List<HasMetadata> base = rendered(K8S);

    assertThat(kinds(base))
        .containsExactlyInAnyOrder("ServiceAccount", "Role", "RoleBinding", "ConfigMap", "StatefulSet", "Service", "MCPServer",
            "Memory", "Job");
    StatefulSet broker = one(StatefulSet.class, base);
    assertThat(broker.getSpec().getReplicas()).isEqualTo(1);
    // The event log is on a PersistentVolumeClaim of the pod's own, not on a volume that dies with the pod.
    String dataDir = ConfigLoader.applyEnvironment(defaults(), brokerSettings(base).getData())
        .getJsonObject("store").getString("dataDir");
    VolumeMount data = broker.getSpec().getTemplate().getSpec().getContainers().get(0).getVolumeMounts().stream()
        .filter(mount -> Path.of(dataDir).startsWith(mount.getMountPath())).findFirst()
        .orElseThrow(() -> new AssertionError("nothing mounted at " + dataDir));
    assertThat(broker.getSpec().getVolumeClaimTemplates()).extracting(claim -> claim.getMetadata().getName())
        .containsExactly(data.getName());
    PersistentVolumeClaim claim = broker.getSpec().getVolumeClaimTemplates().get(0);
    assertThat(claim.getSpec().getResources().getRequests()).containsKey("storage");
    assertThat(claim.getSpec().getStorageClassName()).as("the cluster's default StorageClass").isNull();
    // No Kafka: no topics to create, no settings that point at a cluster that may not exist.
    assertThat(brokerSettings(base).getData().keySet()).noneMatch(name -> name.startsWith("KAFKA_"));
    assertThat(broker.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .extracting(EnvVar::getName).noneMatch(name -> name.startsWith("KAFKA_"));
    assertThat(base).noneMatch(object -> object.getApiVersion().contains("strimzi.io"));
    assertThat(ConfigLoader.applyEnvironment(defaults(), brokerSettings(base).getData())
        .getJsonObject("kafka").getString("bootstrapServers")).isEmpty();
  }

  @Test
  void theKafkaOverlayRendersThreeReplicasOnKafkaWithTheirTopics() throws Exception {
    List<HasMetadata> kafka = rendered(KAFKA_OVERLAY);

    StatefulSet replicas = one(StatefulSet.class, kafka);
    assertThat(replicas.getSpec().getReplicas()).isEqualTo(3);
    // Kafka holds the logs: no volume per pod that nothing writes.
    assertThat(replicas.getSpec().getVolumeClaimTemplates()).isNullOrEmpty();
    assertThat(kafka).noneMatch(object -> object instanceof PersistentVolumeClaim);
    List<String> mounted = replicas.getSpec().getTemplate().getSpec().getContainers().get(0).getVolumeMounts().stream()
        .map(VolumeMount::getName).toList();
    assertThat(replicas.getSpec().getTemplate().getSpec().getVolumes())
        .as("every mounted volume is one of the pod's").extracting(Volume::getName).containsAll(mounted);
    Map<String, String> settings = brokerSettings(kafka).getData();
    assertThat(settings.get("KAFKA_BOOTSTRAP_SERVERS")).isNotBlank();
    assertThat(settings.keySet().stream().filter(name -> name.startsWith("KAFKA_"))).isSubsetOf(settingVariables());
    assertThat(kafka).filteredOn(object -> object.getKind().equals("KafkaTopic")).hasSize(6);
    // Everything else is the base's.
    assertThat(kinds(kafka)).containsAll(kinds(rendered(K8S)));
  }

  @Test
  void theWaitingPhaseOverlayTurnsTheModeOnAndItsCrdPatchMakesArksQueryCrdAcceptIt() throws Exception {
    Map<String, String> settings = brokerSettings(rendered(WAITING_PHASE_OVERLAY)).getData();

    KubeSettings kube = KubeSettings.from(ConfigLoader.applyEnvironment(defaults(), settings).getJsonObject("kube"));
    assertThat(settings).containsEntry("KUBE_QUERY_STATUS_MODE", "phase");
    assertThat(kube.queryStatusMode()).isEqualTo(KubeSettings.QueryStatusMode.PHASE);
    // The command the overlay's kustomization.yaml gives, on Ark's CRD as it ships instead of a cluster's.
    String patched = kubectl("patch", "-f", STOCK_QUERY_CRD.toString(), "--local", "--type", "json",
        "--patch-file", WAITING_PHASE_OVERLAY.resolve("query-crd.patch.yaml").toString(), "-o", "yaml");
    JsonNode status = YAML.readTree(patched).path("spec").path("versions").get(0)
        .path("schema").path("openAPIV3Schema").path("properties").path("status").path("properties");
    assertThat(StreamSupport.stream(status.path("phase").path("enum").spliterator(), false).map(JsonNode::asText))
        .contains("waiting", "running", "done");
    assertThat(status.path("waitingFor").path("properties").fieldNames()).toIterable()
        .contains("since", "question", "taskId", "toolCallId");
  }

  @Test
  void everyManifestParsesAndEveryKustomizationListsOnlyFilesThatExist() throws Exception {
    List<Path> listed = new ArrayList<>();
    for (Path kustomization : files("kustomization.yaml")) {
      for (JsonNode resource : YAML.readTree(kustomization.toFile()).path("resources")) {
        Path file = kustomization.resolveSibling(resource.asText());
        assertThat(Files.isRegularFile(file) || Files.isRegularFile(file.resolve("kustomization.yaml")))
            .as("%s, listed in %s, is a file or a kustomization", file, kustomization).isTrue();
        listed.add(file.normalize());
      }
      for (JsonNode envs : YAML.readTree(kustomization.toFile()).path("configMapGenerator").findValues("envs")) {
        envs.forEach(env -> assertThat(kustomization.resolveSibling(env.asText()))
            .as("%s, an env file of %s", env.asText(), kustomization).isRegularFile());
      }
    }
    for (Path manifest : files(".yaml")) {
      // JSON patches are not objects; the waiting-phase test applies the one there is.
      if (manifest.endsWith("kustomization.yaml") || manifest.toString().endsWith(".patch.yaml")) {
        continue;
      }
      List<HasMetadata> objects = parse(Files.readString(manifest));
      assertThat(objects).as(manifest.toString()).isNotEmpty()
          .allSatisfy(object -> assertThat(object.getMetadata().getName()).isNotBlank());
      if (!manifest.getFileName().toString().contains(".example.")) {
        assertThat(listed).as("%s is applied by a kustomization", manifest).contains(manifest.normalize());
      }
    }
  }

  @Test
  void everyEnvironmentVariableIsOneTheBrokerReads() throws Exception {
    Set<String> known = settingVariables();
    known.addAll(LOGGING_VARIABLES);
    known.add(JVM_VARIABLE);

    Set<String> used = new HashSet<>(environment().keySet());
    used.addAll(exampleSecret(environmentSecret()).getStringData().keySet());

    assertThat(used).isNotEmpty().isSubsetOf(known);
    assertThat(used).contains("HTTP_HOST", "HTTP_PORT", "STORE_DATA_DIR", "KUBE_ENABLED");
  }

  @Test
  void theJvmStartsWithThePodsOptionsGivesFreedNativeMemoryBackAndInlinesOnlySmallMethods() throws Exception {
    List<String> options = List.of(environment().get(JVM_VARIABLE).split(" "));

    assertThat(options).contains("-XX:+ExitOnOutOfMemoryError");
    assertThat(JvmOptionsCheck.finalFlags(options)).containsPattern("TrimNativeHeapInterval\\s+= [1-9]")
        .containsPattern("FreqInlineSize\\s+= 100 ");
  }

  @Test
  void portsPathsAndSettingsMatchWhatTheBrokerServes(@TempDir Path dataDir) throws Exception {
    // The configuration a pod runs with: the defaults, overridden by the manifests' environment.
    JsonObject effective = ConfigLoader.applyEnvironment(defaults(), environment());
    Container broker = container();
    Service service = one(Service.class, applied());

    assertThat(effective.getJsonObject("http").getString("host")).isEqualTo("0.0.0.0");
    int httpPort = effective.getJsonObject("http").getInteger("port");
    int mcpPort = effective.containsKey("mcp") ? effective.getJsonObject("mcp").getInteger("port") : ARK_MCP_PORT;
    assertThat(containerPort(broker, "http")).isEqualTo(httpPort);
    assertThat(containerPort(broker, "mcp")).isEqualTo(mcpPort);
    assertThat(service.getSpec().getPorts()).extracting(ServicePort::getName, ServicePort::getPort,
        p -> p.getTargetPort().getStrVal()).containsExactlyInAnyOrder(tuple("http", 80, "http"), tuple("mcp", 8081, "mcp"));
    assertThat(one(StatefulSet.class, applied()).getSpec().getTemplate().getMetadata().getLabels())
        .as("the Service selects the broker's pods").containsAllEntriesOf(service.getSpec().getSelector());

    JsonNode serviceRef = YAML.valueToTree(mcpServer(applied()).getAdditionalProperties())
        .path("spec").path("address").path("valueFrom").path("serviceRef");
    assertThat(serviceRef.path("name").asText()).isEqualTo(service.getMetadata().getName());
    assertThat(serviceRef.path("port").asText()).isEqualTo("mcp");
    String mcpPath = effective.containsKey("mcp") ? effective.getJsonObject("mcp").getString("path", "/mcp") : "/mcp";
    assertThat(serviceRef.path("path").asText()).isEqualTo(mcpPath);

    assertThat(broker.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
    assertThat(broker.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
    // With the manifests' authentication and the example tokens file: probes carry no token and must pass.
    Path tokens = Files.writeString(dataDir.resolve("tokens.json"), exampleTokensFile());
    JsonObject auth = effective.getJsonObject("auth").copy().put("tokensFile", tokens.toString());
    try (TestBroker running = TestBroker.start(dataDir.resolve("data"), new JsonObject().put("auth", auth))) {
      assertThat(running.get(broker.getReadinessProbe().getHttpGet().getPath()).status()).isEqualTo(200);
      assertThat(running.get(broker.getLivenessProbe().getHttpGet().getPath()).status()).isEqualTo(200);
      assertThat(running.get("/whoami").status()).as("everything else asks for a token").isEqualTo(401);
    }

    // The root filesystem is read-only: the data directory must be on a volume.
    assertThat(broker.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    Path storeDir = Path.of(effective.getJsonObject("store").getString("dataDir"));
    assertThat(broker.getVolumeMounts()).extracting(VolumeMount::getMountPath)
        .anySatisfy(mount -> assertThat(storeDir.startsWith(mount)).as("%s under %s", storeDir, mount).isTrue());
    // What the kube settings say must be something the broker accepts.
    KubeSettings kube = KubeSettings.from(effective.getJsonObject("kube"));
    assertThat(kube.enabled()).isEqualTo(KubeSettings.Enabled.TRUE);
  }

  @Test
  void thePodRunsUnprivilegedWithBoundedResources() throws Exception {
    StatefulSet deployment = one(StatefulSet.class, applied());
    Container broker = container();

    assertThat(deployment.getSpec().getTemplate().getSpec().getServiceAccountName())
        .isEqualTo(named(BROKER, ServiceAccount.class, applied()).getMetadata().getName());
    assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(broker.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(broker.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(broker.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(broker.getResources().getLimits()).containsKeys("cpu", "memory");
  }

  /**
   * Ark finds its broker as upstream's chart installs it: the Memory "default" (checked against Ark's CRD) and the
   * ConfigMaps ark-config-streaming and ark-config-broker name the Service's port "http", which is port 80 (Ark's
   * code maps that name to :80), so Ark's controller, executors, ark-api and the dashboard reach this broker without
   * any change to Ark.
   */
  @Test
  void arkFindsTheBrokerAsItsMemoryItsStreamingServiceAndItsEventsAndTracesBroker() throws Exception {
    List<HasMetadata> base = rendered(K8S);
    Service service = one(Service.class, base);
    GenericKubernetesResource memory = one(GenericKubernetesResource.class, base.stream()
        .filter(object -> object.getKind().equals("Memory")).toList());

    JsonNode memoryObject = YAML.valueToTree(memory);
    assertThat(CrdSchema.load("/kube/ark/ark.mckinsey.com_memories.yaml").violations(memoryObject)).isEmpty();
    assertThat(memory.getMetadata().getName()).isEqualTo("default");
    JsonNode serviceRef = memoryObject.path("spec").path("address").path("valueFrom").path("serviceRef");
    assertThat(serviceRef.path("name").asText()).isEqualTo(service.getMetadata().getName());
    assertThat(serviceRef.path("port").asText()).isEqualTo("http");
    for (String name : List.of("ark-config-streaming", "ark-config-broker")) {
      ConfigMap discovery = one(ConfigMap.class, base.stream()
          .filter(object -> object.getMetadata().getName().equals(name)).toList());
      assertThat(discovery.getData()).as(name).containsEntry("enabled", "true");
      JsonNode serviceRefOf = YAML.readTree(discovery.getData().get("serviceRef"));
      assertThat(serviceRefOf.path("name").asText()).as(name).isEqualTo(service.getMetadata().getName());
      assertThat(serviceRefOf.path("port").asText()).as(name).isEqualTo("http");
    }
    assertThat(service.getSpec().getPorts()).filteredOn(port -> port.getName().equals("http"))
        .extracting(ServicePort::getPort).containsExactly(80);
  }

  /**
   * Ark's controller looks up ark-config-broker only when it starts: the Job restarts it and the completions executor
   * once the ConfigMap exists, unprivileged, with rights to exactly that (read the ConfigMap; read and patch those two
   * Deployments in Ark's namespace). The namespace is set in one place, and every name and subject follows it.
   */
  @Test
  void aJobRestartsArksControllerOnceTheBrokersConfigMapExistsWithRightsToThatAlone(@TempDir Path copy) throws Exception {
    copyTree(K8S, copy.resolve("k8s"));
    Path namespace = copy.resolve(NAMESPACE.toString());
    Files.writeString(namespace, Files.readString(namespace).replace("namespace: default", "namespace: team-a"));
    List<HasMetadata> objects = rendered(copy.resolve("k8s"));

    assertThat(objects).filteredOn(object -> !object.getMetadata().getNamespace().equals(ARK_NAMESPACE))
        .allSatisfy(object -> assertThat(object.getMetadata().getNamespace()).as(object.getMetadata().getName())
            .isEqualTo("team-a"));
    Job job = one(Job.class, objects);
    PodSpec pod = job.getSpec().getTemplate().getSpec();
    Container restart = pod.getContainers().get(0);
    assertThat(pod.getContainers()).hasSize(1);
    assertThat(restart.getImage()).as("pinned by tag").matches("[^:]+:[0-9.]+");
    String script = String.join("\n", restart.getCommand());
    assertThat(script).contains("get configmap " + ARK_BROKER_CONFIG_MAP)
        .contains("for deployment in ark-controller ark-completions").contains("rollout restart deployment \"$deployment\"");
    assertThat(script.indexOf("get configmap")).as("the ConfigMap first").isLessThan(script.indexOf("rollout restart"));
    assertThat(restart.getEnv()).filteredOn(variable -> variable.getName().equals("ARK_NAMESPACE"))
        .extracting(EnvVar::getValue).containsExactly(ARK_NAMESPACE);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(restart.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(restart.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(restart.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(restart.getResources().getLimits()).containsKeys("cpu", "memory");

    String account = pod.getServiceAccountName();
    assertThat(account).isNotEqualTo(BROKER);
    assertThat(rulesBoundTo(account, "team-a", "team-a", objects)).singleElement().satisfies(rule -> {
      assertThat(rule.getApiGroups()).containsExactly("");
      assertThat(rule.getResources()).containsExactly("configmaps");
      assertThat(rule.getResourceNames()).containsExactly(ARK_BROKER_CONFIG_MAP);
      assertThat(rule.getVerbs()).containsExactly("get");
    });
    assertThat(rulesBoundTo(account, "team-a", ARK_NAMESPACE, objects)).singleElement().satisfies(rule -> {
      assertThat(rule.getApiGroups()).containsExactly("apps");
      assertThat(rule.getResources()).containsExactly("deployments");
      assertThat(rule.getResourceNames()).containsExactlyInAnyOrder("ark-controller", "ark-completions");
      // kubectl rollout restart reads the Deployment, then patches its pod template's annotations.
      assertThat(rule.getVerbs()).containsExactlyInAnyOrder("get", "patch");
    });
    assertThat(objects).filteredOn(object -> object.getMetadata().getNamespace().equals(ARK_NAMESPACE))
        .as("named after the broker's namespace: brokers in other namespaces keep their own")
        .extracting(object -> object.getMetadata().getName()).allMatch(name -> name.endsWith(".team-a"));
  }

  /** The rules of the Roles in {@code namespace} that RoleBindings there grant the ServiceAccount {@code account}. */
  private static List<PolicyRule> rulesBoundTo(String account, String accountNamespace, String namespace,
      List<HasMetadata> objects) {
    Set<String> roles = objects.stream().filter(RoleBinding.class::isInstance).map(RoleBinding.class::cast)
        .filter(binding -> binding.getMetadata().getNamespace().equals(namespace))
        .filter(binding -> binding.getSubjects().stream().anyMatch(subject -> subject.getKind().equals("ServiceAccount")
            && subject.getName().equals(account) && accountNamespace.equals(subject.getNamespace())))
        .map(binding -> binding.getRoleRef().getName()).collect(Collectors.toSet());
    assertThat(roles).as("roles bound to %s in %s", account, namespace).isNotEmpty();
    return objects.stream().filter(Role.class::isInstance).map(Role.class::cast)
        .filter(role -> role.getMetadata().getNamespace().equals(namespace) && roles.contains(role.getMetadata().getName()))
        .flatMap(role -> role.getRules().stream()).toList();
  }

  /**
   * The example of docs/ark-broker.md: a Memory Ark's schema accepts that sends the executors' token from a Secret,
   * and a NetworkPolicy that admits Ark's namespace and this one to the broker's pods.
   */
  @Test
  void theCallersExampleGivesTheExecutorsATokenAndLetsOnlyArkReachTheBroker() throws Exception {
    List<HasMetadata> example = parse(Files.readString(K8S.resolve("examples/ark-callers.example.yaml")));
    JsonNode memory = YAML.valueToTree(one(GenericKubernetesResource.class, example));
    NetworkPolicy policy = one(NetworkPolicy.class, example);

    assertThat(CrdSchema.load("/kube/ark/ark.mckinsey.com_memories.yaml").violations(memory)).isEmpty();
    JsonNode header = memory.path("spec").path("headers").path(0);
    assertThat(header.path("name").asText()).isEqualTo("Authorization");
    assertThat(header.path("value").path("valueFrom").path("secretKeyRef").path("name").asText()).isNotBlank();
    assertThat(policy.getSpec().getPodSelector().getMatchLabels())
        .isEqualTo(one(Service.class, rendered(K8S)).getSpec().getSelector());
    assertThat(policy.getSpec().getIngress()).singleElement()
        .satisfies(rule -> assertThat(rule.getFrom()).hasSize(2));
  }

  @Test
  void theBrokerAuthenticatesWithTheTokensFileMountedFromASecret() throws Exception {
    JsonObject effective = ConfigLoader.applyEnvironment(defaults(), environment());
    AuthSettings auth = AuthSettings.from(effective.getJsonObject("auth"));
    Path tokensFile = auth.tokensFile().orElseThrow(() -> new AssertionError("no AUTH_TOKENS_FILE"));

    // Listening on the pod's address, it must authenticate, and refuse to start rather than run open.
    assertThat(auth.mode()).isEqualTo(AuthMode.REQUIRED);
    assertThat(AuthStartup.decide(auth, Map.of("http.host", effective.getJsonObject("http").getString("host"),
        "mcp.host", effective.getJsonObject("mcp").getString("host"))).outcome()).isEqualTo(AuthStartup.Outcome.AUTHENTICATE);

    // The file is a key of a Secret, mounted read-only as a directory: a subPath mount would never see the
    // Secret change, and the broker reads the file again only when it changes.
    Container broker = container();
    VolumeMount mount = broker.getVolumeMounts().stream()
        .filter(candidate -> tokensFile.getParent().equals(Path.of(candidate.getMountPath()))).findFirst()
        .orElseThrow(() -> new AssertionError("no volume mounted at " + tokensFile.getParent()));
    assertThat(mount.getReadOnly()).isTrue();
    assertThat(mount.getSubPath()).isNull();
    Volume volume = one(StatefulSet.class, applied()).getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(candidate -> candidate.getName().equals(mount.getName())).findFirst().orElseThrow();
    assertThat(volume.getSecret()).as("volume %s is a Secret", volume.getName()).isNotNull();
    assertThat(volume.getSecret().getOptional()).as("no pod starts without its tokens").isNotEqualTo(true);
    KeyToPath item = volume.getSecret().getItems().stream()
        .filter(candidate -> candidate.getPath().equals(tokensFile.getFileName().toString())).findFirst()
        .orElseThrow(() -> new AssertionError("the Secret volume has no item " + tokensFile.getFileName()));
    assertThat(exampleSecret(volume.getSecret().getSecretName()).getStringData()).containsKey(item.getKey());
  }

  @Test
  void theExampleTokensFileHasOnlyHashesAnExecutorForTheNamespacesAgentsAndAnAdmin() throws Exception {
    JsonNode tokens = YAML.readTree(exampleTokensFile()).path("tokens");

    assertThat(tokens).isNotEmpty().allSatisfy(entry -> {
      assertThat(entry.path("sha256").asText()).matches("[0-9a-f]{64}");
      assertThat(entry.has("token")).isFalse();
    });
    assertThat(tokens).filteredOn(entry -> entry.path("kind").asText().equals("service")).singleElement()
        .satisfies(executor -> assertThat(executor.path("mayActFor")).isNotEmpty().allSatisfy(pattern ->
            assertThat(pattern.asText()).as("one namespace's agents").matches("ark://agents/[a-z0-9-]+/\\*")));
    assertThat(tokens).anySatisfy(entry -> assertThat(entry.path("kind").asText()).isEqualTo("admin"));
  }

  @Test
  void arksWaitingCallsReturnAsPendingBeforeArkGivesUpOnThem() throws Exception {
    JsonNode spec = YAML.valueToTree(mcpServer(applied()).getAdditionalProperties()).path("spec");
    long timeoutSeconds = java.time.Duration.parse("PT" + spec.path("timeout").asText().toUpperCase(Locale.ROOT)).toSeconds();
    String wait = StreamSupport.stream(spec.path("headers").spliterator(), false)
        .filter(header -> header.path("name").asText().equals("X-Ark-Wait-Seconds")).findFirst()
        .orElseThrow(() -> new AssertionError("the MCPServer does not say how long its calls may wait"))
        .path("value").path("value").asText();

    assertThat(Long.parseLong(wait)).isPositive().isLessThan(timeoutSeconds);
  }

  @Test
  void arkSendsTheExecutorsTokenFromASecretTheBrokerNeverReads() throws Exception {
    JsonNode headers = YAML.valueToTree(mcpServer(applied()).getAdditionalProperties())
        .path("spec").path("headers");
    // Ark's MCPServer CRD: headers[] {name, value: {value | valueFrom: {secretKeyRef: {name, key}}}}.
    JsonNode secretKeyRef = StreamSupport.stream(headers.spliterator(), false)
        .filter(header -> header.path("name").asText().equals("Authorization")).findFirst()
        .orElseThrow(() -> new AssertionError("the MCPServer sends no Authorization header"))
        .path("value").path("valueFrom").path("secretKeyRef");
    String secretName = secretKeyRef.path("name").asText();

    assertThat(exampleSecret(secretName).getStringData().get(secretKeyRef.path("key").asText())).startsWith("Bearer ");
    Set<String> secretsTheBrokerReads = new HashSet<>(Set.of(environmentSecret()));
    one(StatefulSet.class, applied()).getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(volume -> volume.getSecret() != null).forEach(volume -> secretsTheBrokerReads.add(volume.getSecret().getSecretName()));
    assertThat(secretsTheBrokerReads).doesNotContain(secretName);
  }

  @Test
  void restAndMcpAnswerToTheServicesNamesInTheClusterOnly() throws Exception {
    JsonObject effective = ConfigLoader.applyEnvironment(defaults(), environment());
    String service = one(Service.class, applied()).getMetadata().getName();

    for (String surface : List.of("http", "mcp")) {
      HostPolicy hosts = new HostPolicy(effective.getJsonObject(surface).getJsonArray("allowedHosts").stream()
          .map(Object::toString).toList());
      assertThat(List.of(service + ":8081", service + ".default.svc:8080", service + ".team-a.svc.cluster.local:8081",
          "localhost:8080")).as(surface).allSatisfy(host -> assertThat(hosts.refusal(host, null)).isNull());
      assertThat(hosts.refusal("attacker.example.com", null)).as(surface).isNotNull();
    }
  }

  @Test
  void theKafkaTopicsAreTheOnesTheReplicasUseAndWhatTheBrokerAccepts() throws Exception {
    List<HasMetadata> overlay = rendered(KAFKA_OVERLAY);
    Map<String, JsonNode> specs = new HashMap<>();
    for (HasMetadata topic : overlay.stream().filter(object -> object.getKind().equals("KafkaTopic")).toList()) {
      JsonNode spec = YAML.valueToTree(((GenericKubernetesResource) topic).getAdditionalProperties()).path("spec");
      specs.put(spec.path("topicName").asText(), spec);
    }
    JsonObject kafka = ConfigLoader.applyEnvironment(defaults(), brokerSettings(overlay).getData()).getJsonObject("kafka");

    assertThat(specs).containsOnlyKeys(kafka.getString("questionsTopic"), kafka.getString("sessionsTopic"),
        kafka.getString("memoryTopic"), kafka.getString("streamsTopic"), kafka.getString("eventsTopic"),
        kafka.getString("tracesTopic"));
    // The broker refuses a topic of keyed state that deletes by age, one it only appends to that compacts, and any
    // with more than one partition; Kafka keeps at least what the broker's stores keep.
    JsonObject effective = ConfigLoader.applyEnvironment(defaults(), brokerSettings(overlay).getData());
    for (String store : List.of("memory", "streams", "traces", "events")) {
      JsonNode config = specs.get(kafka.getString(store + "Topic")).path("config");
      assertThat(config.path("cleanup.policy").asText()).as(store).isEqualTo("delete");
      assertThat(config.path("retention.ms").asLong()).as(store)
          .isGreaterThanOrEqualTo(effective.getJsonObject(store).getLong("maxAgeSeconds") * 1000);
      assertThat(config.path("retention.bytes").asLong()).as(store)
          .isGreaterThanOrEqualTo(effective.getJsonObject(store).getLong("maxBytes"));
    }
    // The events topic holds the sessions' facts too.
    JsonNode events = specs.get(kafka.getString("eventsTopic")).path("config");
    assertThat(events.path("retention.ms").asLong()).as("events")
        .isGreaterThanOrEqualTo(effective.getJsonObject("querySessions").getLong("maxAgeSeconds") * 1000);
    assertThat(events.path("retention.bytes").asLong()).as("events")
        .isGreaterThanOrEqualTo(effective.getJsonObject("events").getLong("maxBytes")
            + effective.getJsonObject("querySessions").getLong("maxBytes"));
    for (String store : List.of("questions", "sessions")) {
      assertThat(specs.get(kafka.getString(store + "Topic")).path("config").path("cleanup.policy").asText()).as(store)
          .isEqualTo("compact");
    }
    assertThat(specs.values()).allSatisfy(spec -> {
      assertThat(spec.path("partitions").asInt()).isEqualTo(1);
      // Else Kafka refuses the larger records the broker writes (it warns at start, and those writes get 413).
      assertThat(spec.path("config").path("max.message.bytes").asLong()).as("max.message.bytes")
          .isGreaterThanOrEqualTo(kafka.getLong("maxRecordBytes"));
      // A one-broker dev cluster takes them: copies and in-sync copies follow the cluster's own defaults.
      assertThat(spec.path("replicas").asInt(1)).as("replicas").isEqualTo(1);
      assertThat(spec.path("config").path("min.insync.replicas").asInt(1)).as("min.insync.replicas").isEqualTo(1);
    });
  }

  @Test
  void aChangedSettingRollsThePods(@TempDir Path copy) throws Exception {
    List<HasMetadata> before = rendered(K8S);
    String configMap = brokerSettings(before).getMetadata().getName();
    assertThat(configMap).as("named with a hash of the settings").startsWith("ark-broker-config-");
    assertThat(envFromConfigMaps(one(StatefulSet.class, before))).containsExactly(configMap);

    copyTree(K8S, copy.resolve("k8s"));
    Path settings = copy.resolve("k8s/base/config.env");
    Files.writeString(settings, Files.readString(settings).replace("LOG_LEVEL=INFO", "LOG_LEVEL=DEBUG"));
    List<HasMetadata> after = rendered(copy.resolve("k8s"));

    String changed = brokerSettings(after).getMetadata().getName();
    assertThat(changed).isNotEqualTo(configMap);
    assertThat(envFromConfigMaps(one(StatefulSet.class, after))).as("a new pod template: Kubernetes rolls the pods")
        .containsExactly(changed);
  }

  @Test
  void aStoppingPodHasTimeToDrainAndNoServiceLinksSetItsSettings() throws Exception {
    JsonObject effective = ConfigLoader.applyEnvironment(defaults(), environment());
    ShutdownSettings shutdown = ShutdownSettings.from(effective.getJsonObject("shutdown"));
    StatefulSet broker = one(StatefulSet.class, applied());

    assertThat(broker.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
        .as("longer than the drain, the grace for running requests and closing the logs")
        .isGreaterThan(shutdown.delay().plus(shutdown.timeout()).toSeconds() + ProcessShutdown.CLOSE_SECONDS);
    assertThat(broker.getSpec().getTemplate().getSpec().getEnableServiceLinks()).isFalse();
  }

  private static List<String> envFromConfigMaps(StatefulSet broker) {
    return broker.getSpec().getTemplate().getSpec().getContainers().get(0).getEnvFrom().stream()
        .filter(from -> from.getConfigMapRef() != null).map(from -> from.getConfigMapRef().getName()).toList();
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : files.toList()) {
        Path target = to.resolve(from.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else {
          Files.copy(file, target);
        }
      }
    }
  }

  // ---- reading the manifests ----

  /** Every variable the broker container gets: its own env, then the ConfigMap it loads. */
  private static Map<String, String> environment() throws IOException {
    Map<String, String> environment = new HashMap<>(brokerSettings(applied()).getData());
    for (EnvVar variable : container().getEnv()) {
      environment.put(variable.getName(), variable.getValue());
    }
    List<String> configMaps = container().getEnvFrom().stream().filter(from -> from.getConfigMapRef() != null)
        .map(from -> from.getConfigMapRef().getName()).toList();
    assertThat(configMaps).containsExactly(brokerSettings(applied()).getMetadata().getName());
    return environment;
  }

  /** The Secret the broker container loads as environment variables. */
  private static String environmentSecret() throws IOException {
    List<String> secrets = container().getEnvFrom().stream().filter(from -> from.getSecretRef() != null)
        .map(from -> from.getSecretRef().getName()).toList();
    assertThat(secrets).hasSize(1);
    return secrets.get(0);
  }

  /** The Secret of this name in secret.example.yaml, the template operators create theirs from. */
  private static Secret exampleSecret(String name) throws IOException {
    return parse(Files.readString(K8S.resolve("secret.example.yaml"))).stream()
        .filter(object -> object instanceof Secret && object.getMetadata().getName().equals(name))
        .map(Secret.class::cast).findFirst()
        .orElseThrow(() -> new AssertionError("secret.example.yaml has no Secret " + name));
  }

  /** The tokens.json of the example of the Secret that the Deployment mounts. */
  private static String exampleTokensFile() throws IOException {
    List<String> mounted = one(StatefulSet.class, applied()).getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(volume -> volume.getSecret() != null).map(volume -> volume.getSecret().getSecretName()).toList();
    assertThat(mounted).hasSize(1);
    return exampleSecret(mounted.get(0)).getStringData().get("tokens.json");
  }

  private static Container container() throws IOException {
    List<Container> containers = one(StatefulSet.class, applied()).getSpec().getTemplate().getSpec().getContainers();
    assertThat(containers).hasSize(1);
    return containers.get(0);
  }

  private static int containerPort(Container container, String name) {
    return container.getPorts().stream().filter(port -> name.equals(port.getName())).findFirst()
        .map(ContainerPort::getContainerPort).orElseThrow(() -> new AssertionError("no container port " + name));
  }

  /**
   * The objects of the base's files, which {@code kubectl apply -k k8s/} applies (read without kubectl): its
   * resources, and the ConfigMaps its generator makes from env files (named as the resources refer to them;
   * kustomize adds the hash to both).
   */
  private static List<HasMetadata> applied() throws IOException {
    List<HasMetadata> objects = new ArrayList<>();
    JsonNode kustomization = YAML.readTree(BASE.resolve("kustomization.yaml").toFile());
    for (JsonNode resource : kustomization.path("resources")) {
      objects.addAll(parse(Files.readString(BASE.resolve(resource.asText()))));
    }
    for (JsonNode generator : kustomization.path("configMapGenerator")) {
      Map<String, String> data = new HashMap<>();
      for (JsonNode envs : generator.path("envs")) {
        data.putAll(envFile(BASE.resolve(envs.asText())));
      }
      objects.add(new ConfigMapBuilder().withNewMetadata().withName(generator.path("name").asText()).endMetadata()
          .withData(data).build());
    }
    return objects;
  }

  /** A kustomize env file: NAME=value lines, # comments. */
  private static Map<String, String> envFile(Path file) throws IOException {
    Map<String, String> variables = new HashMap<>();
    for (String line : Files.readAllLines(file)) {
      if (!line.isBlank() && !line.startsWith("#")) {
        variables.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
      }
    }
    return variables;
  }

  /** What {@code kubectl kustomize dir} renders; skips the test where kubectl is not installed. */
  private static List<HasMetadata> rendered(Path dir) throws Exception {
    Tools.assumeOnPath("kubectl", "Debian: apt-get install kubernetes-client; .ci/run does it");
    return parse(kubectl("kustomize", dir.toString()));
  }

  /** The broker's settings: the ConfigMap its pods load (not those it gives Ark, such as ark-config-streaming). */
  private static ConfigMap brokerSettings(List<HasMetadata> objects) {
    return one(ConfigMap.class, objects.stream().filter(object -> object.getMetadata().getName()
        .startsWith("ark-broker-config")).toList());
  }

  private static GenericKubernetesResource mcpServer(List<HasMetadata> objects) {
    return one(GenericKubernetesResource.class, objects.stream().filter(object -> object.getKind().equals("MCPServer"))
        .toList());
  }

  private static <T extends HasMetadata> T named(String name, Class<T> type, List<HasMetadata> objects) {
    return one(type, objects.stream().filter(object -> object.getMetadata().getName().equals(name)).toList());
  }

  private static <T> T one(Class<T> type, List<HasMetadata> objects) {
    List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as("one %s", type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  private static List<HasMetadata> parse(String yaml) {
    try (InputStream in = new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))) {
      return parser.load(in).items().stream().filter(Objects::nonNull).toList();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Set<String> kinds(List<HasMetadata> objects) {
    return objects.stream().map(HasMetadata::getKind).collect(Collectors.toSet());
  }

  private static List<Path> files(String suffix) throws IOException {
    try (Stream<Path> walk = Files.walk(K8S)) {
      return walk.filter(f -> f.getFileName().toString().endsWith(suffix)).sorted().toList();
    }
  }

  private static JsonObject defaults() throws IOException {
    return new JsonObject(Files.readString(DEFAULTS));
  }

  /** The environment variables the broker's configuration reads: one per key of conf/broker.json, and Ark's names. */
  static Set<String> settingVariables() throws IOException {
    Set<String> known = new HashSet<>();
    leaves(defaults(), "", known);
    known.addAll(ConfigLoader.ARK_ALIASES.keySet());
    known.add(ConfigLoader.CONFIG_FILE_VARIABLE);
    return known;
  }

  private static void leaves(JsonObject node, String prefix, Set<String> names) {
    for (String key : node.fieldNames()) {
      if (node.getValue(key) instanceof JsonObject child) {
        leaves(child, prefix + key + ".", names);
      } else {
        names.add(ConfigLoader.environmentName(prefix + key));
      }
    }
  }

  /** Runs kubectl without a cluster (no kubeconfig) and returns what it printed. */
  private static String kubectl(String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of(Tools.path("kubectl")));
    command.addAll(List.of(arguments));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("KUBECONFIG", "/dev/null");
    Process kubectl = builder.start();
    String out = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(kubectl.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(kubectl.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(kubectl.exitValue()).as("%s: %s", command, err).isZero();
    return out;
  }
}
