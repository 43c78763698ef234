package ark.broker.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * k8s/examples/identity.example.yaml, the Agent and Query that tell the broker who asks: Ark's CRDs accept them
 * as written, and their overrides reach the broker's MCPServer with the headers the broker reads.
 */
class IdentityExampleTest {
  private static final Path EXAMPLE = Path.of("k8s/examples/identity.example.yaml");
  private static final Path MCP_SERVER = Path.of("k8s/base/mcpserver.yaml");
  private static final String AGENT_CRD = "/kube/ark/ark.mckinsey.com_agents.yaml";
  private static final ObjectMapper YAML = new YAMLMapper();

  /** The example's objects by kind. */
  private static Map<String, JsonNode> example() throws Exception {
    Map<String, JsonNode> byKind = new HashMap<>();
    try (var documents = YAML.readerFor(JsonNode.class).<JsonNode>readValues(new YAMLFactory().createParser(EXAMPLE.toFile()))) {
      documents.readAll().forEach(object -> byKind.put(object.path("kind").asText(), object));
    }
    return byKind;
  }

  /** The headers an object's overrides send to the broker's MCPServer, by name. */
  private static Map<String, String> headersForTheBroker(JsonNode object) throws Exception {
    Map<?, ?> labels = YAML.convertValue(YAML.readTree(MCP_SERVER.toFile()).path("metadata").path("labels"), Map.class);
    Map<String, String> headers = new HashMap<>();
    for (JsonNode override : object.path("spec").path("overrides")) {
      Map<?, ?> selected = YAML.convertValue(override.path("labelSelector").path("matchLabels"), Map.class);
      if (override.path("resourceType").asText().equals("mcpserver") && labels.entrySet().containsAll(selected.entrySet())) {
        override.path("headers").forEach(header -> headers.put(header.path("name").asText(), header.path("value").path("value").asText()));
      }
    }
    return headers;
  }

  @Test
  void arksCrdsAcceptTheAgentAndTheQueryAsWritten() throws Exception {
    Map<String, JsonNode> example = example();

    assertThat(example).containsOnlyKeys("Agent", "Query");
    assertThat(CrdSchema.load(AGENT_CRD).violations(example.get("Agent"))).isEmpty();
    assertThat(CrdSchema.load(MockCluster.QUERY_CRD).violations(example.get("Query"))).isEmpty();
  }

  @Test
  void theAgentNamesItselfAndTheQueryItselfInTheHeadersTheBrokerReads() throws Exception {
    JsonNode agent = example().get("Agent");
    JsonNode query = example().get("Query");

    assertThat(headersForTheBroker(agent)).containsExactlyEntriesOf(Map.of("X-Ark-Agent",
        "ark://agents/" + agent.path("metadata").path("namespace").asText() + "/" + agent.path("metadata").path("name").asText()));
    assertThat(headersForTheBroker(query)).containsExactlyInAnyOrderEntriesOf(Map.of(
        "X-Ark-Query-Namespace", query.path("metadata").path("namespace").asText(),
        "X-Ark-Query-Name", query.path("metadata").path("name").asText()));
    assertThat(query.path("spec").path("target").path("name").asText()).isEqualTo(agent.path("metadata").path("name").asText());
    // The agent calls the broker's ask_question, as Ark names an MCPServer's tools.
    assertThat(agent.path("spec").path("tools").findValuesAsText("name"))
        .isEqualTo(List.of(YAML.readTree(MCP_SERVER.toFile()).path("metadata").path("name").asText() + "-ask-question"));
  }
}
