package ark.broker;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.vertx.config.ConfigRetriever;
import io.vertx.config.ConfigRetrieverOptions;
import io.vertx.config.ConfigStoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the configuration: the defaults ({@code conf/broker.json} inside the jar), merged with
 * {@code conf/broker.json} in the working directory if there is one, or the file {@code ARK_BROKER_CONFIG}
 * names (a file may set only the keys it changes), then environment variables. Every key has an
 * environment name, its path in upper snake case ({@code http.port} is
 * {@code HTTP_PORT}, {@code store.dataDir} is {@code STORE_DATA_DIR}); Ark's own names {@code PORT},
 * {@code MCP_PORT} and {@code HOST} work too, below the specific names.
 */
public final class ConfigLoader {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigLoader.class);
  public static final String CONFIG_FILE_VARIABLE = "ARK_BROKER_CONFIG";
  private static final String DEFAULTS = "conf/broker.json";
  public static final Map<String, String> ARK_ALIASES = Map.of(
      "PORT", "http.port",
      "MCP_PORT", "mcp.port",
      "HOST", "http.host");

  private ConfigLoader() {
  }

  /**
   * The configuration, or a failure whose message names the file and says what is wrong with it (not valid JSON,
   * a value of the wrong type). Keys the broker does not have, in the file or as environment variables that look
   * like misspelt settings, are warned about, each with the setting it probably means.
   */
  public static Future<JsonObject> load(Vertx vertx, Map<String, String> environment) {
    // Every key always has its default, so the rooms' settings never need defaults of their own.
    JsonObject bundled = bundledDefaults();
    ConfigStoreOptions defaults = new ConfigStoreOptions().setType("json").setConfig(bundled);
    // A relative path is looked up in the working directory first, then inside the jar.
    String file = environment.getOrDefault(CONFIG_FILE_VARIABLE, DEFAULTS);
    String source = describe(file, environment.containsKey(CONFIG_FILE_VARIABLE));
    ConfigStoreOptions fileStore = new ConfigStoreOptions().setType("file").setFormat("json")
        .setConfig(new JsonObject().put("path", file));
    ConfigRetriever retriever = ConfigRetriever.create(vertx, new ConfigRetrieverOptions()
        .setIncludeDefaultStores(false).addStore(defaults).addStore(fileStore));
    ConfigCheck check = new ConfigCheck(bundled);
    return retriever.getConfig()
        .eventually(retriever::close)
        .recover(failure -> Future.failedFuture(new IllegalArgumentException(unreadable(source, failure), failure)))
        .map(merged -> {
          List<String> wrong = check.wrongTypes(merged, source);
          if (!wrong.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", wrong));
          }
          check.unknownKeys(merged, source).forEach(LOG::warn);
          JsonObject config = applyEnvironment(merged, environment);
          check.misspeltVariables(environment).forEach(LOG::warn);
          return config;
        });
  }

  /**
   * How messages name the configuration file: its full path where it is a file; a relative path that is not one
   * names the copy inside the jar.
   */
  private static String describe(String file, boolean named) {
    Path path = Path.of(file);
    String where = Files.isRegularFile(path) || path.isAbsolute() ? path.toAbsolutePath().normalize().toString()
        : file + " (not in " + Path.of("").toAbsolutePath() + ", so inside the jar)";
    return "the configuration file " + where + (named ? " named by " + CONFIG_FILE_VARIABLE : "");
  }

  /** Why {@code source} could not be read, in words: its parse error with line and column, not the parser's internals. */
  static String unreadable(String source, Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof MismatchedInputException) {
        return source + " does not hold a JSON object of settings ({\"http\": {\"port\": 8080}, ...})";
      }
      if (cause instanceof JsonProcessingException json) {
        JsonLocation at = json.getLocation();
        String problem = json.getOriginalMessage().replaceAll("\\s*\\(?(start marker )?at \\[Source:[^\\]]*\\]\\)?", "");
        return source + " is not valid JSON" + (at == null ? "" : " at line " + at.getLineNr() + ", column "
            + at.getColumnNr()) + ": " + problem;
      }
      if (cause instanceof NoSuchFileException) {
        return source + " does not exist";
      }
    }
    return source + " cannot be read: " + failure.getMessage();
  }

  /** The defaults shipped inside the jar. */
  public static JsonObject bundledDefaults() {
    try (InputStream in = ConfigLoader.class.getClassLoader().getResourceAsStream(DEFAULTS)) {
      if (in == null) {
        throw new IllegalStateException(DEFAULTS + " is missing from the classpath");
      }
      return new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Overrides every leaf of {@code config} that has an environment variable; types follow the defaults. */
  public static JsonObject applyEnvironment(JsonObject config, Map<String, String> environment) {
    JsonObject result = config.copy();
    ARK_ALIASES.forEach((alias, path) -> {
      if (environment.containsKey(alias)) {
        override(result, path, alias, environment.get(alias));
      }
    });
    overrideLeaves(result, "", environment);
    return result;
  }

  /** The environment variable that overrides a key path such as {@code store.dataDir}. */
  public static String environmentName(String path) {
    return path.replaceAll("([a-z0-9])([A-Z])", "$1_$2").replace('.', '_').toUpperCase(Locale.ROOT);
  }

  private static void overrideLeaves(JsonObject node, String prefix, Map<String, String> environment) {
    for (String key : node.fieldNames()) {
      String path = prefix + key;
      Object value = node.getValue(key);
      if (value instanceof JsonObject child) {
        overrideLeaves(child, path + ".", environment);
      } else {
        String variable = environmentName(path);
        if (environment.containsKey(variable)) {
          override(node, key, variable, environment.get(variable), value);
        }
      }
    }
  }

  private static void override(JsonObject root, String path, String variable, String text) {
    String[] parts = path.split("\\.");
    JsonObject node = root;
    for (int i = 0; i < parts.length - 1; i++) {
      node = node.getJsonObject(parts[i]);
      if (node == null) {
        return;
      }
    }
    String key = parts[parts.length - 1];
    override(node, key, variable, text, node.getValue(key));
  }

  private static void override(JsonObject node, String key, String variable, String text, Object current) {
    try {
      Object value;
      if (current instanceof Integer) {
        value = Integer.parseInt(text.trim());
      } else if (current instanceof Long) {
        value = Long.parseLong(text.trim());
      } else if (current instanceof Double) {
        value = Double.parseDouble(text.trim());
      } else if (current instanceof Boolean) {
        value = parseBoolean(text.trim());
      } else if (current instanceof JsonArray) {
        value = text.isBlank() ? new JsonArray() : new JsonArray(java.util.Arrays.stream(text.split(","))
            .map(String::trim).toList());
      } else {
        value = text;
      }
      node.put(key, value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Environment variable " + variable + "='" + text + "' is not a valid "
          + current.getClass().getSimpleName().replace("Json", "").toLowerCase(Locale.ROOT)
          // Kubernetes gives every pod <SERVICE>_PORT=tcp://... for each Service of its namespace.
          + (text.matches("(tcp|udp)://.*") ? " (Kubernetes set it for a Service of that name: set enableServiceLinks:"
              + " false in the pod's spec)" : ""), e);
    }
  }

  private static boolean parseBoolean(String text) {
    if (text.equalsIgnoreCase("true")) {
      return true;
    }
    if (text.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException("not true or false");
  }
}
