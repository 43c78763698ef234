package ark.broker.auth;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/** Writes tokens files for the tests, the way an operator would: hashes only. */
final class TokensFixture {
  private TokensFixture() {
  }

  static JsonObject entry(String token, String kind, String name, List<String> teams, List<String> mayActFor) {
    JsonObject entry = new JsonObject().put("sha256", TokenHash.hex(token)).put("kind", kind).put("name", name);
    if (!teams.isEmpty()) {
      entry.put("teams", new JsonArray(teams));
    }
    if (!mayActFor.isEmpty()) {
      entry.put("mayActFor", new JsonArray(mayActFor));
    }
    return entry;
  }

  static JsonObject entry(String token, String kind, String name) {
    return entry(token, kind, name, List.of(), List.of());
  }

  /** Replaces the file in one step, as a Kubernetes Secret update does. */
  static void write(Path file, JsonObject... entries) throws IOException {
    writeText(file, new JsonObject().put("tokens", new JsonArray(List.of((Object[]) entries))).encodePrettily());
  }

  static void writeText(Path file, String text) throws IOException {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, text);
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
