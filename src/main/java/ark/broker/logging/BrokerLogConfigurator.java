package ark.broker.logging;

import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.classic.ClassicConstants;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Function;

/**
 * The broker's logging, set up in code when logback starts (a {@link Configurator} service): one line per event on
 * standard output ({@link BrokerLogLayout}) behind an asynchronous queue, {@code LOG_LEVEL} for the broker's loggers
 * and {@code ACCESS_LOG_LEVEL} for the per-request lines (both {@code INFO} unless set), the per-question lines off
 * until {@code log.requests} turns them on ({@link RequestLines}), and the libraries' chatter at {@code WARN} or
 * above. An operator's own file still wins ({@code -Dlogback.configurationFile}, and the tests'
 * {@code logback-test.xml}): logback then reads it as usual. Made in code because reading an XML file loads logback's
 * configuration framework and the JDK's XML parser, some 360 classes and 2 MiB of class metadata that a broker
 * never uses again.
 */
public final class BrokerLogConfigurator extends ContextAwareBase implements Configurator {
  /** The broker's loggers' level. */
  public static final String LEVEL_VARIABLE = "LOG_LEVEL";
  /** The level of {@code ark.broker.http.access}, the per-request lines that {@code http.accessLog} turns on. */
  public static final String ACCESS_LEVEL_VARIABLE = "ACCESS_LOG_LEVEL";
  public static final String ACCESS_LOGGER = "ark.broker.http.access";
  private static final int QUEUE_SIZE = 8192;
  private static final Map<String, Level> LIBRARY_LEVELS = Map.of(
      "io.netty", Level.WARN,
      "io.vertx", Level.WARN,
      // Ark's Query API is v1alpha1 by design; fabric8's warning about unstable versions tells operators nothing.
      "io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils", Level.ERROR,
      // While Kafka is unreachable the client warns at every reconnect; the broker says so once instead.
      "org.apache.kafka.clients.NetworkClient", Level.ERROR,
      "org.apache.kafka.clients.producer.internals.Sender", Level.ERROR);

  private final Function<String, String> environment;

  public BrokerLogConfigurator() {
    this(System::getenv);
  }

  BrokerLogConfigurator(Function<String, String> environment) {
    this.environment = environment;
  }

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty(ClassicConstants.CONFIG_FILE_PROPERTY) != null
        || getClass().getClassLoader().getResource(ClassicConstants.TEST_AUTOCONFIG_FILE) != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    configureBroker(context);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  void configureBroker(LoggerContext context) {
    BrokerLogLayout layout = new BrokerLogLayout();
    layout.setContext(context);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(context);
    encoder.setLayout(layout);
    encoder.setCharset(StandardCharsets.UTF_8);
    encoder.start();
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName(LogFormat.CONSOLE);
    console.setEncoder(encoder);
    console.start();
    AsyncAppender async = new AsyncAppender();
    async.setContext(context);
    async.setName(LogFormat.ASYNC);
    async.setQueueSize(QUEUE_SIZE);
    async.setDiscardingThreshold(0);
    async.setNeverBlock(false);
    async.addAppender(console);
    async.start();

    context.getLogger("ark.broker").setLevel(level(LEVEL_VARIABLE));
    context.getLogger(ACCESS_LOGGER).setLevel(level(ACCESS_LEVEL_VARIABLE));
    context.getLogger(RequestLines.LOGGER).setLevel(Level.OFF);
    LIBRARY_LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(async);
  }

  /** The level an environment variable names, {@code INFO} when it is unset or names none. */
  private Level level(String variable) {
    return Level.toLevel(environment.apply(variable), Level.INFO);
  }
}
