package ark.broker;

import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a configuration file or the environment says that the broker would otherwise misread in silence: keys it
 * does not have (a misspelt key leaves its setting at the default), values of the wrong type (which would fail deep
 * inside a room, in Java's words), and environment variables that look like misspelt settings. Checked against
 * the bundled defaults, which hold every key; maps whose default is empty ({@code channels.directory.users}) take
 * any keys.
 */
final class ConfigCheck {
  /** An unknown key within this many edits of a known one is reported as probably meaning it. */
  private static final int NEAR_KEY = 3;
  /**
   * The same for environment variables, closer: the environment holds many variables that are not the broker's
   * ({@code HTTP_PROXY} is three edits from {@code HTTP_PORT}).
   */
  private static final int NEAR_VARIABLE = 2;
  private static final int SHOWN_VALUE_CHARS = 60;

  private final JsonObject defaults;
  /** Every key path of the defaults, sections included, and the environment variable of each that has one. */
  private final Map<String, String> paths = new LinkedHashMap<>();
  /** The environment variable of every key a variable can set, to its key path; Ark's names too. */
  private final Map<String, String> variables = new TreeMap<>();

  ConfigCheck(JsonObject defaults) {
    this.defaults = defaults;
    collect(defaults, "");
    ConfigLoader.ARK_ALIASES.forEach(variables::put);
  }

  private void collect(JsonObject node, String prefix) {
    for (String key : node.fieldNames()) {
      String path = prefix + key;
      if (node.getValue(key) instanceof JsonObject child) {
        paths.put(path, null);
        collect(child, path + ".");
      } else {
        paths.put(path, ConfigLoader.environmentName(path));
        variables.put(ConfigLoader.environmentName(path), path);
      }
    }
  }

  /** Values of {@code config} whose type is not their default's, each as a sentence naming {@code source}. */
  List<String> wrongTypes(JsonObject config, String source) {
    List<String> problems = new ArrayList<>();
    walk(config, defaults, "", (path, value, expected) -> {
      if (expected != null && !sameKind(value, expected)) {
        problems.add(path + " in " + source + " is " + shown(value) + " (" + kind(value) + "), but must be "
            + article(kind(expected)) + " like its default " + shown(expected));
      }
    });
    return problems;
  }

  /** Keys of {@code config} that the broker does not have, each with the known key it probably means. */
  List<String> unknownKeys(JsonObject config, String source) {
    List<String> problems = new ArrayList<>();
    walk(config, defaults, "", (path, value, expected) -> {
      if (expected == null) {
        problems.add("Unknown setting " + path + " in " + source + " is ignored"
            + nearest(path, paths.keySet(), NEAR_KEY).map(known -> "; did you mean " + known
                + (paths.get(known) == null ? "" : " (" + paths.get(known) + ")") + "?")
            .orElse(" (docs/configuration.md lists every setting)"));
      }
    });
    return problems;
  }

  /**
   * Variables of {@code environment} that start like a setting's (a section's name, such as {@code HTTP_}) and are
   * within a few edits of one they are not: probably that one, misspelt.
   */
  List<String> misspeltVariables(Map<String, String> environment) {
    List<String> problems = new ArrayList<>();
    List<String> sections = defaults.fieldNames().stream().map(section -> ConfigLoader.environmentName(section) + "_").toList();
    environment.keySet().stream().sorted().forEach(variable -> {
      if (variables.containsKey(variable) || variable.equals(ConfigLoader.CONFIG_FILE_VARIABLE)
          || sections.stream().noneMatch(variable::startsWith)) {
        return;
      }
      nearest(variable, variables.keySet(), NEAR_VARIABLE).ifPresent(known -> problems.add("Environment variable "
          + variable + " is not a setting and is ignored; did you mean " + known + " (" + variables.get(known) + ")?"));
    });
    return problems;
  }

  @FunctionalInterface
  private interface Visitor {
    /** @param expected the default at {@code path}, or null when the defaults have no such key */
    void visit(String path, Object value, Object expected);
  }

  /** Visits every key of {@code node}, descending where both it and its default are sections with keys of their own. */
  private static void walk(JsonObject node, JsonObject defaults, String prefix, Visitor visitor) {
    for (String key : node.fieldNames()) {
      String path = prefix + key;
      Object value = node.getValue(key);
      Object expected = defaults.getValue(key);
      visitor.visit(path, value, expected);
      if (value instanceof JsonObject child && expected instanceof JsonObject section && !section.isEmpty()) {
        walk(child, section, path + ".", visitor);
      }
    }
  }

  private static boolean sameKind(Object value, Object expected) {
    return kind(value).equals(kind(expected));
  }

  private static String kind(Object value) {
    if (value instanceof JsonObject) {
      return "object";
    }
    if (value instanceof JsonArray) {
      return "list";
    }
    if (value instanceof Number) {
      return "number";
    }
    if (value instanceof Boolean) {
      return "boolean";
    }
    return value == null ? "null" : "text";
  }

  private static String article(String kind) {
    return (kind.startsWith("o") ? "an " : "a ") + kind;
  }

  /** The value as JSON, cut short: enough to recognise it, with every control character escaped. */
  private static String shown(Object value) {
    String json = Json.encode(value);
    return json.length() <= SHOWN_VALUE_CHARS ? json : json.substring(0, SHOWN_VALUE_CHARS) + "…";
  }

  /**
   * The candidate fewest edits from {@code name} (ignoring case), if it is within {@code most} and within half the
   * name's length (any three letters are three edits from any other three).
   */
  private static Optional<String> nearest(String name, Iterable<String> candidates, int most) {
    String lower = name.toLowerCase(Locale.ROOT);
    int within = Math.min(most, Math.max(1, name.length() / 2));
    Map<String, Integer> distances = new LinkedHashMap<>();
    for (String candidate : candidates) {
      distances.put(candidate, editDistance(lower, candidate.toLowerCase(Locale.ROOT)));
    }
    return distances.entrySet().stream().filter(entry -> entry.getValue() <= within)
        .min(Comparator.comparingInt(Map.Entry::getValue)).map(Map.Entry::getKey);
  }

  /** Levenshtein distance: the fewest insertions, deletions and substitutions that turn one into the other. */
  static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
