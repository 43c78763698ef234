package ark.broker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxy;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.AsyncAppenderBase;
import ch.qos.logback.core.OutputStreamAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The broker's own logging, as a broker started without a logback file of its operator's sets it up. */
class BrokerLogConfiguratorTest {
  private static LoggerContext configured(Map<String, String> environment) {
    LoggerContext context = new LoggerContext();
    BrokerLogConfigurator configurator = new BrokerLogConfigurator(environment::get);
    configurator.setContext(context);
    configurator.configureBroker(context);
    return context;
  }

  @Test
  void levelsComeFromTheEnvironmentWithInfoForUnsetOrUnknownNames() {
    LoggerContext context = configured(Map.of("LOG_LEVEL", "debug", "ACCESS_LOG_LEVEL", "WARN"));
    assertThat(context.getLogger("ark.broker.mcp.protocol.McpServer").getEffectiveLevel()).isEqualTo(Level.DEBUG);
    assertThat(context.getLogger(BrokerLogConfigurator.ACCESS_LOGGER).getEffectiveLevel()).isEqualTo(Level.WARN);

    LoggerContext defaults = configured(Map.of("LOG_LEVEL", "loud"));
    assertThat(defaults.getLogger("ark.broker.store.Questions").getEffectiveLevel()).isEqualTo(Level.INFO);
    assertThat(defaults.getLogger(BrokerLogConfigurator.ACCESS_LOGGER).getEffectiveLevel()).isEqualTo(Level.INFO);
  }

  @Test
  void perQuestionLinesAreOffAndLibrariesSayOnlyWarningsOrWorse() {
    LoggerContext context = configured(Map.of());
    assertThat(context.getLogger(RequestLines.LOGGER).getEffectiveLevel()).isEqualTo(Level.OFF);
    assertThat(context.getLogger("io.netty.channel.DefaultChannelPipeline").getEffectiveLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("io.vertx.core.impl.ContextImpl").getEffectiveLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("org.apache.kafka.clients.NetworkClient").getEffectiveLevel()).isEqualTo(Level.ERROR);
    assertThat(context.getLogger("com.example.Anything").getEffectiveLevel()).isEqualTo(Level.WARN);
  }

  @Test
  void everyEventGoesThroughTheQueueToTheConsoleWhichLogFormatSwitchesToJson() {
    LoggerContext context = configured(Map.of());
    Appender<?> async = context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender(LogFormat.ASYNC);
    assertThat(async).isInstanceOf(AsyncAppenderBase.class);
    assertThat(((AsyncAppenderBase<?>) async).getAppender(LogFormat.CONSOLE)).isInstanceOf(OutputStreamAppender.class);
  }

  @Test
  void aLineIsTimeLevelLoggerAndTheEscapedMessageWithItsEscapedStackTraceBelow() {
    LoggerContext context = new LoggerContext();
    BrokerLogLayout layout = new BrokerLogLayout();
    layout.setContext(context);
    layout.start();
    LoggingEvent event = new LoggingEvent("ark.broker.auth.Authenticators",
        context.getLogger("ark.broker.auth.Authenticators"), Level.WARN, "token from {} refused", null,
        new Object[] {"curl\nERROR forged"});
    event.setTimeStamp(1_700_000_000_123L);
    String time = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX")
        .format(Instant.ofEpochMilli(1_700_000_000_123L).atZone(ZoneId.systemDefault()));

    assertThat(layout.doLayout(event))
        .isEqualTo(time + " WARN  Authenticators - token from curl\\nERROR forged refused" + System.lineSeparator());

    event.setThrowableProxy(new ThrowableProxy(new IllegalStateException("bad\nERROR forged")));
    String[] lines = layout.doLayout(event).split(System.lineSeparator());
    assertThat(lines[0]).endsWith(" - token from curl\\nERROR forged refused");
    assertThat(lines[1]).isEqualTo("java.lang.IllegalStateException: bad\\nERROR forged");
    assertThat(lines[2]).startsWith("\tat ark.broker.logging.BrokerLogConfiguratorTest");
  }
}
