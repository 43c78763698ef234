package ark.broker;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The architecture's doors: which rooms (packages under ark.broker, with their subpackages) each room's
 * code may name, read from the import lines and the fully qualified names in src/main/java.
 */
class ImportRulesTest {
  private static final Path MAIN = Path.of("src/main/java");
  /** The top-level package: Main and ConfigLoader wire everything, and nothing but the tests may use them. */
  private static final String TOP = "ark.broker";
  /**
   * Leaf toolkits every room may use, which use nothing of the broker: the keyed work queue and backoff (reconcile),
   * the HTTP servers' pieces (web), and log lines that client text cannot break (logging).
   */
  private static final Set<String> SHARED = Set.of("reconcile", "web", "logging");

  /** Each room and the other rooms it may use (besides itself, the shared {@link #SHARED} packages, and the JDK and libraries). */
  private static final Map<String, Set<String>> MAY_USE = Map.ofEntries(
      entry("question", Set.of()),
      entry("wire", Set.of("question")),
      entry("bus", Set.of("question", "auth")),
      entry("log", Set.of("question")),
      entry("store", Set.of("question", "wire", "log", "bus", "auth")),
      entry("worker", Set.of("bus")),
      entry("auth", Set.of("question")),
      entry("http", Set.of("question", "wire", "bus", "auth")),
      entry("mcp", Set.of("question", "wire", "bus", "auth", "mcp.protocol")),
      entry("kube", Set.of("question", "wire", "bus", "auth")),
      entry("channel", Set.of("question", "wire", "bus", "auth")),
      entry("mcp.protocol", Set.of()),
      entry("reconcile", Set.of()),
      entry("web", Set.of()),
      entry("logging", Set.of()));

  /** Libraries a room must not use, by package prefix: the domain is plain Java. */
  private static final Map<String, List<String>> MUST_NOT_USE = Map.of("question", List.of("io.vertx."));

  /**
   * Uses that break the rules today, as "file -> what it names". Clear them from the code, then from here;
   * the test fails when one listed here is gone, so the list only shrinks.
   */
  private static final Set<String> KNOWN_VIOLATIONS = Set.of();

  @Test
  void everyRoomUsesOnlyTheRoomsItsRulesAllow() throws IOException {
    Set<String> violations = new TreeSet<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
        String code = withoutCommentsAndLiterals(Files.readString(file));
        String room = roomOf(packageOf(code));
        String name = MAIN.relativize(file).toString().replace('\\', '/');
        for (String used : brokerPackagesUsed(code)) {
          if (!mayUse(room, roomOf(used))) {
            violations.add(name + " -> " + used);
          }
        }
        for (String library : MUST_NOT_USE.getOrDefault(room, List.of())) {
          if (Pattern.compile("\\b" + Pattern.quote(library)).matcher(code).find()) {
            violations.add(name + " -> " + library.substring(0, library.length() - 1));
          }
        }
      }
    }

    assertThat(violations).as("uses against the rules in MAY_USE and MUST_NOT_USE").isSubsetOf(KNOWN_VIOLATIONS);
    assertThat(KNOWN_VIOLATIONS).as("KNOWN_VIOLATIONS fixed since: remove them from the list").isSubsetOf(violations);
  }

  @Test
  void importsAndQualifiedNamesCountButCommentsAndStringsDoNot() {
    String code = withoutCommentsAndLiterals("""
        package ark.broker.http;

        import ark.broker.store.StoreVerticle;
        import static ark.broker.log.LogFile.open;
        import ark.broker.bus.*;
        // ark.broker.kube.QueryApi
        /** {@link ark.broker.worker.SoleWorkerVerticle} */
        class Example {
          String logger = "ark.broker.channel.Slack";
          char quote = '"';
          ark.broker.Main main;
          ark.broker.mcp.protocol.McpFeatures features;
        }
        """);

    assertThat(packageOf(code)).isEqualTo("ark.broker.http");
    assertThat(brokerPackagesUsed(code))
        .containsExactlyInAnyOrder("ark.broker.store", "ark.broker.log", "ark.broker.bus", TOP, "ark.broker.mcp.protocol");
    assertThat(mayUse("http", roomOf("ark.broker.store"))).isFalse();
    assertThat(mayUse("http", roomOf("ark.broker.bus"))).isTrue();
    assertThat(mayUse("channel", roomOf("ark.broker.channel.slack"))).isTrue();
    assertThat(mayUse("http", roomOf("ark.broker.mcp.protocol"))).isFalse();
    assertThat(mayUse("mcp.protocol", roomOf("ark.broker.mcp"))).isFalse();
    assertThat(mayUse("kube", roomOf(TOP))).isFalse();
    assertThat(mayUse(TOP, roomOf("ark.broker.kube"))).isTrue();
  }

  private static boolean mayUse(String room, String used) {
    if (room.equals(TOP) || used.equals(room) || SHARED.contains(used)) {
      return true;
    }
    if (used.equals(TOP)) {
      return false;
    }
    Set<String> allowed = MAY_USE.get(room);
    if (allowed == null) {
      throw new AssertionError("no rule for the room " + room + ": add it to ImportRulesTest.MAY_USE");
    }
    return allowed.contains(used);
  }

  /** ark.broker for the top level, mcp.protocol for it and below, else the package right under ark.broker. */
  private static String roomOf(String pkg) {
    if (pkg.equals(TOP)) {
      return TOP;
    }
    String[] parts = pkg.substring(TOP.length() + 1).split("\\.");
    return parts[0].equals("mcp") && parts.length > 1 && parts[1].equals("protocol") ? "mcp.protocol" : parts[0];
  }

  private static String packageOf(String code) {
    Matcher declaration = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE).matcher(code);
    if (!declaration.find()) {
      throw new AssertionError("no package declaration");
    }
    return declaration.group(1);
  }

  /** The packages of ark.broker that imports and qualified names mention (other than in the package line). */
  private static Set<String> brokerPackagesUsed(String code) {
    String body = code.replaceFirst("(?m)^\\s*package\\s+[\\w.]+\\s*;", "");
    Set<String> used = new TreeSet<>();
    Matcher name = Pattern.compile("\\bark\\.broker((?:\\.[a-z_][\\w]*)*)(?=\\.[A-Z*]|\\b)").matcher(body);
    while (name.find()) {
      used.add(TOP + name.group(1));
    }
    return used;
  }

  /** Comments and literals, each as its opening and closing delimiter; a line comment keeps its line break. */
  private static final String[][] NOT_CODE = {{"//", "\n"}, {"/*", "*/"}, {"\"\"\"", "\"\"\""}, {"\"", "\""}, {"'", "'"}};

  /** The code with comments, strings, text blocks and character literals each replaced by a space. */
  private static String withoutCommentsAndLiterals(String source) {
    StringBuilder code = new StringBuilder(source.length());
    int i = 0;
    next:
    while (i < source.length()) {
      for (String[] delimiters : NOT_CODE) {
        if (source.startsWith(delimiters[0], i)) {
          boolean literal = !delimiters[0].startsWith("/");
          int at = i + delimiters[0].length();
          while (at < source.length() && !source.startsWith(delimiters[1], at)) {
            at += literal && source.charAt(at) == '\\' ? 2 : 1;
          }
          code.append(' ');
          i = delimiters[1].equals("\n") ? at : Math.min(source.length(), at + delimiters[1].length());
          continue next;
        }
      }
      code.append(source.charAt(i++));
    }
    return code.toString();
  }
}
