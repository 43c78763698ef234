package ark.broker.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shell commands a Markdown document shows, where it marks them runnable, with the output it shows for them.
 * A fenced block right after the line {@code <!-- runnable -->} runs against a broker without authentication;
 * {@code <!-- runnable: with tokens -->} against one with the tokens of {@code scripts/dev-tokens.sh}, in
 * {@code $ARK_*_TOKEN}; {@code <!-- runnable: broker log -->} marks a block of log lines that broker must have
 * logged. In a {@code console} block a command starts with {@code $ } and goes on over the lines its quotes or a
 * trailing backslash leave open; the lines up to the next command are its output. In a {@code bash} block every
 * command runs and its output is not compared.
 */
public final class DocumentedCommands {
  private static final Pattern MARKER = Pattern.compile("<!-- runnable(?::\\s*(.*?))?\\s*-->");
  private static final Pattern FENCE = Pattern.compile("```(\\w*)\\s*");

  public enum Session { OPEN, WITH_TOKENS }

  /**
   * One command, where it is written and what the document shows it print.
   *
   * @param background whether it ends with {@code &}: it runs on while the next commands run
   */
  public record Step(Path file, int line, String command, boolean background, List<String> output) {
  }

  /** A marked block: commands to run, or (log) lines the broker logs. */
  public record Block(Path file, int line, Session session, boolean log, List<Step> steps, List<String> lines) {
  }

  private DocumentedCommands() {
  }

  public static List<Block> read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i + 1 < lines.size(); i++) {
      Matcher marker = MARKER.matcher(lines.get(i).strip());
      Matcher fence = FENCE.matcher(lines.get(i + 1).strip());
      if (!marker.matches()) {
        continue;
      }
      if (!fence.matches()) {
        throw new IllegalStateException(file + ":" + (i + 1) + ": a runnable marker must stand right before a fenced block");
      }
      String kind = marker.group(1) == null ? "" : marker.group(1);
      // A block in a list item is indented as the item is.
      String fenceLine = lines.get(i + 1);
      int indent = fenceLine.length() - fenceLine.stripLeading().length();
      List<String> body = new ArrayList<>();
      int first = i + 3;
      for (i += 2; !lines.get(i).strip().equals("```"); i++) {
        String line = lines.get(i);
        body.add(line.substring(Math.min(indent, line.length() - line.stripLeading().length())));
      }
      blocks.add(switch (kind) {
        case "" -> commands(file, first, Session.OPEN, fence.group(1), body);
        case "with tokens" -> commands(file, first, Session.WITH_TOKENS, fence.group(1), body);
        case "broker log" -> new Block(file, first, Session.OPEN, true, List.of(), body);
        default -> throw new IllegalStateException(file + ":" + (first - 2) + ": unknown runnable marker '" + kind + "'");
      });
    }
    return blocks;
  }

  private static Block commands(Path file, int first, Session session, String language, List<String> body) {
    boolean console = language.equals("console");
    if (!console && !language.equals("bash")) {
      throw new IllegalStateException(file + ":" + first + ": runnable blocks are console or bash, not '" + language + "'");
    }
    List<Step> steps = new ArrayList<>();
    for (int i = 0; i < body.size(); i++) {
      String line = body.get(i);
      boolean command = console ? line.startsWith("$ ") : !line.isBlank() && !line.strip().startsWith("#");
      if (!command) {
        if (console && steps.isEmpty() && !line.isBlank()) {
          throw new IllegalStateException(file + ":" + (first + i) + ": output before the first command");
        }
        if (console && !steps.isEmpty()) {
          steps.get(steps.size() - 1).output().add(line);
        }
        continue;
      }
      int start = i;
      StringBuilder text = new StringBuilder(console ? line.substring(2) : line);
      while (open(text) && i + 1 < body.size()) {
        text.append('\n').append(body.get(++i));
      }
      String written = text.toString().strip();
      steps.add(new Step(file, first + start, written, written.endsWith("&") && !written.endsWith("&&"), new ArrayList<>()));
    }
    return new Block(file, first, session, false, steps, List.of());
  }

  /** Whether a command goes on on the next line: a quote still open, or a backslash at the end. */
  static boolean open(CharSequence command) {
    char quote = 0;
    boolean escaped = false;
    for (int i = 0; i < command.length(); i++) {
      char c = command.charAt(i);
      if (escaped) {
        escaped = false;
      } else if (c == '\\' && quote != '\'') {
        escaped = true;
      } else if (quote == 0 && (c == '\'' || c == '"')) {
        quote = c;
      } else if (c == quote) {
        quote = 0;
      }
    }
    return quote != 0 || escaped;
  }

  /**
   * What a document shows programs print, checked against what they printed: each line shown for a command must
   * appear after that command started (in any order: a command running in the background prints between the lines
   * of the others), where {@code …} or {@code ...} stands for any text on the line and ids, request ids, times and
   * MCP session ids for any such value. The values they stood for are remembered, so that later commands written
   * with the document's values run with the real ones.
   */
  public static final class Expected {
    private static final String QUESTION_ID = "q-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
    private static final String UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
    private static final String INSTANT = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?Z";
    private static final String SESSION_ID = "(?<![\\w-])[\\w-]{32}(?![\\w-])";
    private static final Pattern PARTS = Pattern.compile(
        "(" + QUESTION_ID + ")|(" + UUID + ")|(" + INSTANT + ")|(" + SESSION_ID + ")|(\\s*(?:…|\\.\\.\\.)\\s*)");

    private record Line(Step step, int from, String shown, Pattern pattern, List<String> tokens) {
    }

    private final List<Line> waiting = new ArrayList<>();
    private final Map<String, String> actual = new LinkedHashMap<>();

    /**
     * Expects the lines shown for {@code step} (blank ones and a lone {@code ...} say nothing) in what is printed
     * from offset {@code from} on, where it started.
     */
    public void add(Step step, List<String> shown, int from) {
      for (String line : shown) {
        if (!line.isBlank() && !line.strip().equals("...") && !line.strip().equals("…")) {
          waiting.add(compile(step, from, line.strip()));
        }
      }
    }

    private static Line compile(Step step, int from, String shown) {
      StringBuilder regex = new StringBuilder();
      List<String> tokens = new ArrayList<>();
      Matcher part = PARTS.matcher(shown);
      int literal = 0;
      while (part.find()) {
        regex.append(Pattern.quote(shown.substring(literal, part.start())));
        if (part.group(5) != null) {
          regex.append("[^\\n]*?");
        } else {
          String kind = part.group(1) != null ? QUESTION_ID : part.group(2) != null ? UUID
              : part.group(3) != null ? INSTANT : SESSION_ID;
          regex.append('(').append(kind).append(')');
          tokens.add(part.group());
        }
        literal = part.end();
      }
      regex.append(Pattern.quote(shown.substring(literal)));
      return new Line(step, from, shown, Pattern.compile(regex.toString()), tokens);
    }

    /** Finds what it can of the expected lines in {@code printed}; true once all were found. */
    public boolean matchIn(String printed) {
      waiting.removeIf(line -> {
        Matcher found = line.pattern.matcher(printed);
        if (!found.find(Math.min(line.from, printed.length()))) {
          return false;
        }
        for (int i = 0; i < line.tokens.size(); i++) {
          actual.putIfAbsent(line.tokens.get(i), found.group(i + 1));
        }
        return true;
      });
      return waiting.isEmpty();
    }

    /** {@code command} with the ids and session ids of the document replaced by those the programs printed. */
    public String withActualValues(String command) {
      String replaced = command;
      for (Map.Entry<String, String> value : actual.entrySet()) {
        replaced = replaced.replace(value.getKey(), value.getValue());
      }
      return replaced;
    }

    /** Where the first line not found is shown, and what it says; null when all were found. */
    public String missing() {
      if (waiting.isEmpty()) {
        return null;
      }
      Line line = waiting.get(0);
      return line.step.file() + ":" + line.step.line() + " ($ " + line.step.command().lines().findFirst().orElse("")
          + ") shows a line that was not printed:\n  " + line.shown;
    }
  }
}
