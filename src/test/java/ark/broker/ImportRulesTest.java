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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The architecture's doors: which rooms (packages under ark.broker, with their subpackages) each room's
 * code may name, read from the import lines and the fully qualified names in src/main/java.
 */
class ImportRulesTest {
  private static final Path MAIN = Path.of("src/main/java");
  /** The top-level package: Main and ConfigLoader wire everything, and nothing but the tests may use them. */
  private static final String TOP = "ark.broker";
  /** The rules, as docs/architecture.md states them for readers. */
  private static final Path RULES = Path.of("docs/architecture.md");
  /** Toolkits every room may use, which use nothing of the broker (the line after the table names them). */
  private static final Set<String> SHARED = toolkits();
  /** Each room and the other rooms it may use (besides itself, the toolkits, and the JDK and libraries). */
  private static final Map<String, Set<String>> MAY_USE = rooms();

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
  void everyPackageSaysWhatItOwnsAndEveryRoomHasItsRule() throws IOException {
    Set<String> rooms = new TreeSet<>();
    try (Stream<Path> dirs = Files.walk(MAIN.resolve("ark/broker"))) {
      for (Path dir : dirs.filter(Files::isDirectory).toList()) {
        boolean hasCode;
        try (Stream<Path> files = Files.list(dir)) {
          hasCode = files.anyMatch(file -> file.toString().endsWith(".java"));
        }
        if (hasCode) {
          assertThat(dir.resolve("package-info.java")).as("what %s owns", dir).exists();
          String room = roomOf(MAIN.relativize(dir).toString().replace('/', '.'));
          if (!room.equals(TOP)) {
            rooms.add(room);
          }
        }
      }
    }

    Set<String> ruled = new TreeSet<>(MAY_USE.keySet());
    ruled.addAll(SHARED);
    assertThat(ruled).as("the rooms of %s", RULES).isEqualTo(rooms);
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

  /** The table's rows: {@code | `room` | what it owns | `other`, `other` |} (a dash for none). */
  private static Map<String, Set<String>> rooms() {
    Map<String, Set<String>> rules = new java.util.TreeMap<>();
    Pattern row = Pattern.compile("^\\| `([\\w.]+)` \\|[^|]*\\|([^|]*)\\|$");
    for (String line : rulesText().lines().toList()) {
      Matcher matched = row.matcher(line);
      if (matched.matches()) {
        Set<String> uses = new TreeSet<>();
        Matcher used = Pattern.compile("`([\\w.]+)`").matcher(matched.group(2));
        while (used.find()) {
          uses.add(used.group(1));
        }
        rules.put(matched.group(1), uses);
      }
    }
    assertThat(rules).as("the rooms table of %s", RULES).isNotEmpty();
    return rules;
  }

  /** The rooms named in the line that starts "Toolkits any room may use". */
  private static Set<String> toolkits() {
    String text = rulesText();
    int at = text.indexOf("Toolkits any room may use");
    assertThat(at).as("the toolkits line of %s", RULES).isNotNegative();
    Set<String> toolkits = new TreeSet<>();
    Matcher named = Pattern.compile("`([\\w.]+)` \\(").matcher(text.substring(at, text.indexOf("\n\n", at)));
    while (named.find()) {
      toolkits.add(named.group(1));
    }
    return toolkits;
  }

  private static String rulesText() {
    try {
      return Files.readString(RULES);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
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
