package ark.broker.testing;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * The cast of the identity tests: one bearer token per kind of caller, written to a tokens file the way an
 * operator writes one (SHA-256 hashes only). {@link #config(Path)} turns authentication on with it.
 */
public final class Identities {
  public static final String AGENT_NAME = "ark://agents/team-a/reviewer";
  public static final String OTHER_AGENT_NAME = "ark://agents/team-b/writer";
  public static final String SERVICE_NAME = "ark://users/system:ark-executor";
  public static final String HUMAN_NAME = "ark://users/ann";
  public static final String OTHER_HUMAN_NAME = "ark://users/bob";
  public static final String ADMIN_NAME = "ark://users/root";
  /** Ann's team: questions for it are hers to see and answer. */
  public static final String TEAM = "ark://teams/reviewers";

  /** An agent; its questions are its own. */
  public static final String AGENT = "agent-a-token-5f2c";
  /** Another agent, who must not see the first one's questions. */
  public static final String OTHER_AGENT = "agent-b-token-9d41";
  /** Ark's executor: a service that may act for the agents of namespace team-a only. */
  public static final String SERVICE = "service-token-77aa";
  /** Ann, in the reviewers team. */
  public static final String HUMAN = "human-ann-token-31b8";
  /** Bob, in no team. */
  public static final String OTHER_HUMAN = "human-bob-token-c0de";
  public static final String ADMIN = "admin-token-e4e4";

  private Identities() {
  }

  /** Writes the tokens file into {@code dir} and returns the settings that turn authentication on with it. */
  public static JsonObject config(Path dir) throws Exception {
    Path file = dir.resolve("tokens.json");
    Files.writeString(file, tokensFile().encodePrettily());
    return new JsonObject().put("auth", new JsonObject().put("mode", "required").put("tokensFile", file.toString()));
  }

  public static JsonObject tokensFile() {
    return new JsonObject().put("tokens", new JsonArray()
        .add(entry(AGENT, "agent", AGENT_NAME, List.of(), List.of()))
        .add(entry(OTHER_AGENT, "agent", OTHER_AGENT_NAME, List.of(), List.of()))
        .add(entry(SERVICE, "service", SERVICE_NAME, List.of(), List.of("ark://agents/team-a/*")))
        .add(entry(HUMAN, "human", HUMAN_NAME, List.of(TEAM), List.of()))
        .add(entry(OTHER_HUMAN, "human", OTHER_HUMAN_NAME, List.of(), List.of()))
        .add(entry(ADMIN, "admin", ADMIN_NAME, List.of(), List.of())));
  }

  public static String sha256(String token) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonObject entry(String token, String kind, String name, List<String> teams, List<String> mayActFor) {
    return new JsonObject().put("sha256", sha256(token)).put("kind", kind).put("name", name)
        .put("teams", new JsonArray(teams)).put("mayActFor", new JsonArray(mayActFor));
  }
}
