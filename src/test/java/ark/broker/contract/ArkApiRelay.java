package ark.broker.contract;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What ark-api's {@code proxy_sse_stream} does to the broker's event streams on their way to the dashboard: it reads
 * them line by line and sends each non-empty line followed by a blank line, so each line becomes an event of its own;
 * and what the dashboard's EventSource ({@code onmessage} only) then receives.
 */
final class ArkApiRelay {
  private ArkApiRelay() {
  }

  static String relay(List<String> brokerLines) {
    StringBuilder relayed = new StringBuilder();
    for (String line : brokerLines) {
      if (!line.isEmpty()) {
        relayed.append(line).append("\n\n");
      }
    }
    return relayed.toString();
  }

  /**
   * The data of the events an EventSource dispatches from {@code text} (the HTML standard's parsing, without
   * retry); fails on an event an {@code onmessage} handler would not receive (a named one).
   */
  static List<String> messages(String text) {
    List<String> dispatched = new ArrayList<>();
    StringBuilder data = new StringBuilder();
    String type = "";
    for (String line : text.split("\n", -1)) {
      if (line.isEmpty()) {
        if (data.length() > 0) {
          assertThat(type).as("the type of the event with data %s", data).isIn("", "message");
          dispatched.add(data.substring(0, data.length() - 1));
        }
        data.setLength(0);
        type = "";
      } else if (!line.startsWith(":")) {
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = colon < 0 ? "" : line.substring(colon + 1).replaceFirst("^ ", "");
        if (field.equals("data")) {
          data.append(value).append('\n');
        } else if (field.equals("event")) {
          type = value;
        }
      }
    }
    return dispatched;
  }
}
