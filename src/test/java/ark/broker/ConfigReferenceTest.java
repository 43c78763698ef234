package ark.broker;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md is the one configuration reference, and it cannot drift from conf/broker.json:
 * every key there has a row here (and the other way round), with the environment variables ConfigLoader
 * really reads and the default the file really holds. Keys named anywhere else in the docs must exist too.
 */
class ConfigReferenceTest {
  private static final Path DEFAULTS = Path.of("conf/broker.json");
  private static final Path REFERENCE = Path.of("docs/configuration.md");
  private static final Path README = Path.of("README.md");
  private static final Path DOCS = Path.of("docs");
  /** Lists whose items are objects: a comma-separated variable cannot express them, so only a file sets them. */
  private static final Set<String> FILE_ONLY_LISTS = Set.of("channels.routes", "kube.approvals.routes", "escalation.rules");
  private static final String FILE_ONLY = "(file only)";
  /** A table row whose first cell is a backquoted key path, such as {@code | `http.port` | ...}. */
  private static final Pattern KEY_ROW = Pattern.compile("^\\|\\s*`([a-z][A-Za-z0-9]*(?:\\.[a-z][A-Za-z0-9]*)+)`\\s*\\|");
  private static final Pattern BACKQUOTED = Pattern.compile("`([^`]*)`");
  private static final Pattern VARIABLE = Pattern.compile("[A-Z][A-Z0-9_]*");

  private static JsonObject defaults;
  /** Every leaf of conf/broker.json by its dotted path; arrays and empty objects (maps) are leaves. */
  private static Map<String, Object> keys;
  private static List<Row> rows;

  private record Row(String key, String environment, String defaultValue, int line) {
  }

  @BeforeAll
  static void read() throws IOException {
    defaults = new JsonObject(Files.readString(DEFAULTS));
    keys = new LinkedHashMap<>();
    flatten(defaults, "", keys);
    rows = new ArrayList<>();
    List<String> lines = Files.readAllLines(REFERENCE);
    for (int i = 0; i < lines.size(); i++) {
      Matcher row = KEY_ROW.matcher(lines.get(i));
      if (row.find()) {
        String[] cells = lines.get(i).split("\\|", -1);
        // cells[0] is before the first '|'; then key, environment, default, meaning.
        assertThat(cells.length).as("%s:%d has the columns Key | Environment | Default | Meaning", REFERENCE, i + 1)
            .isGreaterThanOrEqualTo(5);
        rows.add(new Row(row.group(1), cells[2].trim(), cells[3].trim(), i + 1));
      }
    }
  }

  @Test
  void everyKeyOfTheDefaultsIsDocumented() {
    Set<String> documented = rows.stream().map(Row::key).collect(Collectors.toSet());
    List<String> missing = keys.keySet().stream().filter(key -> !documented.contains(key)).toList();

    assertThat(missing).as("keys of %s without a row in %s", DEFAULTS, REFERENCE).isEmpty();
  }

  @Test
  void everyDocumentedKeyExists() {
    List<String> unknown = rows.stream().filter(row -> !keys.containsKey(row.key()))
        .map(row -> row.key() + " (line " + row.line() + ")").toList();

    assertThat(unknown).as("keys documented in %s that %s does not have", REFERENCE, DEFAULTS).isEmpty();
  }

  @Test
  void eachKeyIsDocumentedOnce() {
    Set<String> seen = new TreeSet<>();
    List<String> twice = rows.stream().map(Row::key).filter(key -> !seen.add(key)).toList();

    assertThat(twice).as("keys with more than one row in %s", REFERENCE).isEmpty();
  }

  @Test
  void theEnvironmentColumnNamesTheVariablesConfigLoaderReads() {
    List<String> wrong = new ArrayList<>();
    for (Row row : rows) {
      if (!keys.containsKey(row.key())) {
        continue; // reported by everyDocumentedKeyExists
      }
      Set<String> documented = backquoted(row.environment()).stream()
          .filter(token -> VARIABLE.matcher(token).matches()).collect(Collectors.toCollection(TreeSet::new));
      if (fileOnly(row.key())) {
        if (!documented.isEmpty() || !row.environment().contains(FILE_ONLY)) {
          wrong.add(row.key() + ": structured, so the column must say " + FILE_ONLY + ", not " + row.environment());
        }
        continue;
      }
      Set<String> expected = new TreeSet<>();
      expected.add(ConfigLoader.environmentName(row.key()));
      ConfigLoader.ARK_ALIASES.forEach((alias, path) -> {
        if (path.equals(row.key())) {
          expected.add(alias);
        }
      });
      if (!documented.equals(expected)) {
        wrong.add(row.key() + ": documented " + documented + ", ConfigLoader reads " + expected);
      }
    }

    assertThat(wrong).as("environment variables in %s", REFERENCE).isEmpty();
  }

  @Test
  void everyDocumentedVariableReallyOverridesItsKey() {
    List<String> ignored = new ArrayList<>();
    for (Row row : rows) {
      if (!keys.containsKey(row.key()) || fileOnly(row.key())) {
        continue;
      }
      Object current = keys.get(row.key());
      for (String variable : backquoted(row.environment())) {
        if (!VARIABLE.matcher(variable).matches()) {
          continue;
        }
        String text;
        Object expected;
        if (current instanceof Boolean flag) {
          text = String.valueOf(!flag);
          expected = !flag;
        } else if (current instanceof Number number) {
          text = String.valueOf(number.longValue() + 1);
          expected = number.longValue() + 1;
        } else if (current instanceof JsonArray) {
          text = "first, second";
          expected = new JsonArray().add("first").add("second");
        } else {
          text = "overridden-" + current;
          expected = text;
        }
        Object result = leaf(ConfigLoader.applyEnvironment(defaults, Map.of(variable, text)), row.key());
        Object comparable = result instanceof Number number && !(result instanceof Double) ? number.longValue() : result;
        if (!expected.equals(comparable)) {
          ignored.add(variable + "=" + text + " left " + row.key() + " at " + result);
        }
      }
    }

    assertThat(ignored).as("variables documented in %s that do not override their key", REFERENCE).isEmpty();
  }

  @Test
  void theDefaultColumnHoldsTheValueOfTheFile() {
    List<String> wrong = new ArrayList<>();
    for (Row row : rows) {
      if (!keys.containsKey(row.key())) {
        continue;
      }
      String expected = render(keys.get(row.key()));
      List<String> documented = backquoted(row.defaultValue());
      if (documented.isEmpty() || !documented.get(0).equals(expected)) {
        wrong.add(row.key() + ": documented " + row.defaultValue() + ", " + DEFAULTS + " has `" + expected + "`");
      }
    }

    assertThat(wrong).as("defaults in %s (first backquoted value of the Default column)", REFERENCE).isEmpty();
  }

  @Test
  void keysNamedAnywhereInTheDocsExist() throws IOException {
    // `http.port`, `channels.slack.enabled: true`, `store.watchHistory` ...: a section of the file, then key names.
    Pattern mention = Pattern.compile("`((?:" + String.join("|", defaults.fieldNames())
        + ")(?:\\.[a-z][A-Za-z0-9]*)+)(?=[`:= ])");
    List<Path> files = new ArrayList<>();
    files.add(README);
    try (Stream<Path> docs = Files.list(DOCS)) {
      docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    List<String> unknown = new ArrayList<>();
    for (Path file : files) {
      List<String> lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        Matcher matcher = mention.matcher(lines.get(i));
        while (matcher.find()) {
          String key = matcher.group(1);
          // Rooms are named like keys too (mcp.protocol): a package of the broker is no key; nor is a file
          // (`memory.yaml`, a manifest).
          boolean known = keys.containsKey(key) || keys.keySet().stream().anyMatch(leaf -> leaf.startsWith(key + "."))
              || Files.isDirectory(Path.of("src/main/java/ark/broker", key.split("\\.")))
              || key.matches(".*\\.(yaml|yml|json|md|env)");
          if (!known) {
            unknown.add(file + ":" + (i + 1) + ": " + key);
          }
        }
      }
    }

    assertThat(unknown).as("configuration keys named in the docs that %s does not have", DEFAULTS).isEmpty();
  }

  private static void flatten(JsonObject node, String prefix, Map<String, Object> into) {
    for (String name : node.fieldNames()) {
      Object value = node.getValue(name);
      if (value instanceof JsonObject child && !child.isEmpty()) {
        flatten(child, prefix + name + ".", into);
      } else {
        into.put(prefix + name, value);
      }
    }
  }

  private static boolean fileOnly(String key) {
    return keys.get(key) instanceof JsonObject || FILE_ONLY_LISTS.contains(key);
  }

  private static Object leaf(JsonObject config, String key) {
    String[] parts = key.split("\\.");
    JsonObject node = config;
    for (int i = 0; i < parts.length - 1; i++) {
      node = node.getJsonObject(parts[i]);
    }
    return node.getValue(parts[parts.length - 1]);
  }

  /** How the reference writes a default: the value itself, {@code ""}, {@code []}, {@code {}}, or list items joined by commas. */
  private static String render(Object value) {
    if (value instanceof String text) {
      return text.isEmpty() ? "\"\"" : text;
    }
    if (value instanceof JsonArray array) {
      return array.isEmpty() ? "[]" : array.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
    if (value instanceof JsonObject object) {
      return object.isEmpty() ? "{}" : object.encode();
    }
    return String.valueOf(value);
  }

  private static List<String> backquoted(String cell) {
    List<String> tokens = new ArrayList<>();
    Matcher matcher = BACKQUOTED.matcher(cell);
    while (matcher.find()) {
      tokens.add(matcher.group(1));
    }
    return tokens;
  }
}
