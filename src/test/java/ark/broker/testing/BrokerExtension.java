package ark.broker.testing;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One {@link TestBroker} for all the tests of a class, on a data directory of its own that is deleted
 * afterwards. Register it on a static field; the started broker is handed to {@code started}:
 * <pre>{@code
 * static TestBroker broker;
 * @RegisterExtension
 * static final BrokerExtension lifecycle = new BrokerExtension(overrides, started -> broker = started);
 * }</pre>
 */
public final class BrokerExtension implements BeforeAllCallback, AfterAllCallback {
  /** The overrides, from a directory of the broker's own where they may write files. */
  private final Function<Path, JsonObject> overrides;
  private final Consumer<TestBroker> started;
  private Path dataDir;
  private TestBroker broker;

  /** A broker with conf/broker.json and {@code overrides} merged in, as {@link TestBroker#start} does. */
  public BrokerExtension(JsonObject overrides, Consumer<TestBroker> started) {
    this(dir -> overrides, started);
  }

  private BrokerExtension(Function<Path, JsonObject> overrides, Consumer<TestBroker> started) {
    this.overrides = overrides;
    this.started = started;
  }

  /** A broker with authentication on, the tokens of {@link Identities} in force. */
  public static BrokerExtension withIdentities(Consumer<TestBroker> started) {
    return withIdentities(new JsonObject(), started);
  }

  /** The same, with {@code overrides} merged in. */
  public static BrokerExtension withIdentities(JsonObject overrides, Consumer<TestBroker> started) {
    return new BrokerExtension(dir -> {
      try {
        return Identities.config(dir).mergeIn(overrides, true);
      } catch (Exception e) {
        throw new IllegalStateException("the tokens file could not be written", e);
      }
    }, started);
  }

  public BrokerExtension(Consumer<TestBroker> started) {
    this(new JsonObject(), started);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    LoggerFactory.getLogger(BrokerExtension.class).info("A broker for {}", context.getDisplayName());
    dataDir = Files.createTempDirectory("ark-test-broker");
    broker = TestBroker.start(dataDir.resolve("data"), overrides.apply(dataDir));
    started.accept(broker);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      if (broker != null) {
        broker.close();
      }
    } finally {
      broker = null;
      if (dataDir != null) {
        try (var paths = Files.walk(dataDir)) {
          for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(path);
          }
        }
        dataDir = null;
      }
    }
  }
}
