package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.DocumentedCommands;
import ark.broker.testing.DocumentedCommands.Block;
import ark.broker.testing.DocumentedCommands.Session;
import ark.broker.testing.DocumentedCommands.Step;
import ark.broker.testing.Eventually;
import ark.broker.testing.NodeDriven;
import ark.broker.testing.ShellSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands README.md and docs/*.md mark runnable ({@link DocumentedCommands}) run, pasted as they are written,
 * against the jar as the README starts it (their ports 8080 and 8081 become the test brokers'), and print what the
 * documents show: each document in a shell of its own, in the order it shows them. So a document that says a
 * command works, and what it prints, cannot drift from the broker.
 */
@NodeDriven
class DocumentedCommandsIT {
  private static final Path ROOT = Path.of("").toAbsolutePath();
  private static final Duration COMMAND = Duration.ofMinutes(2);

  @TempDir
  static Path dir;
  static final Map<Session, BrokerProcess> brokers = new EnumMap<>(Session.class);
  static final Map<String, String> tokens = new HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    Path secrets = dir.resolve("secrets");
    Process made = new ProcessBuilder("scripts/dev-tokens.sh", secrets.toString()).redirectErrorStream(true).start();
    assertThat(made.waitFor()).as(new String(made.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
    Files.readAllLines(secrets.resolve("tokens.env")).forEach(line -> tokens.put(line.split("=", 2)[0], line.split("=", 2)[1]));
    // The README shows the lines of its requests, which LOG_REQUESTS turns on.
    Map<String, String> open = new HashMap<>(BrokerProcess.fixedMcpPort());
    open.put("LOG_REQUESTS", "true");
    brokers.put(Session.OPEN, BrokerProcess.start(dir.resolve("open"), BrokerProcess.freePort(), open));
    Map<String, String> authenticated = new HashMap<>(BrokerProcess.fixedMcpPort());
    authenticated.put("AUTH_TOKENS_FILE", secrets.resolve("tokens.json").toString());
    brokers.put(Session.WITH_TOKENS, BrokerProcess.start(dir.resolve("tokens"), BrokerProcess.freePort(), authenticated));
  }

  @AfterAll
  static void stop() throws Exception {
    for (BrokerProcess broker : brokers.values()) {
      broker.close();
    }
  }

  /** README.md first: it shows the resourceVersions of a broker that has seen nothing else. */
  static List<Path> documents() throws Exception {
    List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    return documents;
  }

  @TestFactory
  Stream<DynamicTest> theCommandsTheDocumentsMarkRunnableRunAndPrintWhatTheyShow() throws Exception {
    List<DynamicTest> tests = new ArrayList<>();
    for (Path document : documents()) {
      List<Block> blocks = DocumentedCommands.read(document);
      for (Session session : Session.values()) {
        List<Block> mine = blocks.stream().filter(block -> block.session() == session).toList();
        if (!mine.isEmpty()) {
          tests.add(DynamicTest.dynamicTest(ROOT.relativize(document) + " against a broker " + (session == Session.OPEN
              ? "without authentication" : "with tokens"), () -> run(session, mine)));
        }
      }
    }
    assertThat(tests).as("runnable blocks in the documents").isNotEmpty();
    return tests.stream();
  }

  private static void run(Session session, List<Block> blocks) throws Exception {
    BrokerProcess broker = brokers.get(session);
    int logged = broker.output().length();
    Map<String, String> environment = new HashMap<>(session == Session.WITH_TOKENS ? tokens : Map.of());
    // npx takes the Inspector from its cache once it has it.
    environment.put("npm_config_prefer_offline", "true");
    DocumentedCommands.Expected expected = new DocumentedCommands.Expected();
    try (ShellSession shell = new ShellSession(ROOT, environment)) {
      for (Block block : blocks) {
        if (block.log()) {
          continue;
        }
        for (Step step : block.steps()) {
          int from = shell.printed().length();
          String command = expected.withActualValues(onTestPorts(step.command(), broker));
          if (step.background()) {
            shell.start(command, COMMAND);
          } else {
            assertThat(shell.run(command, COMMAND)).as(step.file() + ":" + step.line() + " exit status of\n" + command
                + "\n--- printed:\n" + shell.printed() + "\n--- on standard error:\n" + shell.errors()).isZero();
          }
          expected.add(step, step.output().stream().map(line -> onTestPorts(line, broker)).toList(), from);
          expected.matchIn(shell.printed());
        }
      }
      // What commands still running in the background print comes when it comes.
      shell.awaitPrinted(expected::matchIn, Duration.ofSeconds(30));
      assertThat(expected.missing()).as("printed:\n" + shell.printed() + "\n--- on standard error:\n" + shell.errors()).isNull();
    }
    for (Block block : blocks) {
      if (block.log()) {
        DocumentedCommands.Expected log = new DocumentedCommands.Expected();
        log.add(new Step(block.file(), block.line(), "(the broker's log)", false, block.lines()), block.lines(), 0);
        try {
          Eventually.until("the log lines", () -> broker.output().substring(logged), log::matchIn);
        } catch (AssertionError notLogged) {
          throw new AssertionError(log.missing() + "\n--- the broker logged:\n" + broker.output().substring(logged));
        }
      }
    }
  }

  /** The document's ports (8080 for REST, 8081 for MCP) as the test broker's. */
  private static String onTestPorts(String text, BrokerProcess broker) {
    return text.replaceAll("(localhost|127\\.0\\.0\\.1):8080\\b", "$1:" + broker.base.getPort())
        .replaceAll("(localhost|127\\.0\\.0\\.1):8081\\b", "$1:" + broker.mcp.getPort());
  }
}
