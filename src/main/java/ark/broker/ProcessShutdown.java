package ark.broker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How the broker process ends. Asked to stop (SIGTERM from Kubernetes or Docker, Ctrl-C in a terminal), it stops
 * serving gracefully ({@link Main#stopServing}: not ready and asking clients to go elsewhere for
 * {@code shutdown.delaySeconds}, then no new connections, the streams clients resume elsewhere ended, and at most
 * {@code shutdown.timeoutSeconds} for the requests still running), closes its logs, writes out its own log and exits
 * 0: a stop it was asked for is no failure. One line marks the start of the shutdown, one its end.
 * <p>
 * The JVM answers those signals by running its shutdown hooks and then exiting with 128 + the signal's number; this
 * hook ends the process itself when done ({@link Runtime#halt}), with 0. An exit the broker chose itself (a failed
 * start) keeps its status and only closes what runs.
 */
final class ProcessShutdown {
  /** How long closing the stores (files, Kafka clients) may take once the ports are done, before the process exits regardless. */
  static final long CLOSE_SECONDS = 10;
  private static final Logger LOG = LoggerFactory.getLogger(ProcessShutdown.class);

  private final Vertx vertx;
  private volatile Main.RunningBroker broker;
  private volatile ShutdownSettings settings;
  private volatile boolean exitChosen;
  private volatile boolean stoppingBeforeServing;

  private ProcessShutdown(Vertx vertx) {
    this.vertx = vertx;
  }

  static ProcessShutdown install(Vertx vertx) {
    ProcessShutdown shutdown = new ProcessShutdown(vertx);
    Runtime.getRuntime().addShutdownHook(new Thread(shutdown::run, "ark-broker-shutdown"));
    return shutdown;
  }

  /** The broker serves now: a stop from here on drains it as {@code settings} say. */
  void serving(Main.RunningBroker running, ShutdownSettings settings) {
    this.settings = settings;
    this.broker = running;
  }

  /**
   * True once a stop began before the broker served: its start then fails (the rooms still deploying are closed
   * under it), which is what was asked for, not an error, and this hook ends the process.
   */
  boolean stoppingBeforeServing() {
    return stoppingBeforeServing;
  }

  /** Ends the process with {@code status}, closing what runs. Not on an event loop: the close needs them. */
  void exit(int status) {
    exitChosen = true;
    System.exit(status);
  }

  private void run() {
    if (exitChosen) {
      close();
      flushLog();
      return;
    }
    long started = System.nanoTime();
    Main.RunningBroker running = broker;
    if (running == null) {
      stoppingBeforeServing = true;
      LOG.info("Stopping before the start finished: nothing is served yet");
      // Deployments still under way fail as the close undeploys them, on Vert.x's threads: expected now.
      vertx.exceptionHandler(failure -> LOG.debug("While stopping before the start finished: {}", failure.toString()));
      // A blocking task still running (a log being replayed) ends after the event loops have closed, and Vert.x's
      // task queue logs the refused hand-back as an unexpected error: expected now too.
      silence("io.vertx.core.impl.TaskQueue");
      close();
      finish(0);
      return;
    }
    ShutdownSettings drain = settings;
    LOG.info("Shutting down: /readyz answers 503 and responses ask clients to reconnect for {} s (shutdown.delaySeconds),"
        + " then the ports close, watches and waiting MCP calls end for their clients to resume on another replica,"
        + " and requests still running get {} s (shutdown.timeoutSeconds)",
        drain.delay().toSeconds(), drain.timeout().toSeconds());
    watchdog(drain.delay().plus(drain.timeout()).plusSeconds(CLOSE_SECONDS));
    try {
      Main.stopServing(vertx, running, drain).await();
    } catch (RuntimeException e) {
      LOG.warn("Stopping the ports failed ({}); closing anyway", e.getMessage());
    }
    close();
    LOG.info("Ark Broker stopped in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    finish(0);
  }

  /** Closes every room, its logs and Kafka clients included, waiting at most {@link #CLOSE_SECONDS}. */
  private void close() {
    try {
      vertx.close().await(CLOSE_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("Closing took longer than {} s or failed ({}); exiting anyway", CLOSE_SECONDS, e.toString());
    }
  }

  /** Ends the process once {@code limit} has passed, should the shutdown hang (a disk or Kafka that never answers). */
  private void watchdog(Duration limit) {
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(limit.toMillis());
      } catch (InterruptedException e) {
        return;
      }
      LOG.error("The shutdown did not finish within {} s (shutdown.delaySeconds + shutdown.timeoutSeconds + {} s to"
          + " close the logs); exiting now", limit.toSeconds(), CLOSE_SECONDS);
      finish(1);
    }, "ark-broker-shutdown-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }

  /** Writes out what the log still holds (its appender is asynchronous) and ends the process with {@code status}. */
  private static void finish(int status) {
    flushLog();
    Runtime.getRuntime().halt(status);
  }

  private static void silence(String logger) {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
      logback.getLogger(logger).setLevel(Level.OFF);
    }
  }

  private static void flushLog() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
      logback.stop();
    }
  }
}
