package ark.broker.question;

import java.util.List;

/**
 * What a question asks, of whom and by whom: fixed when it is created.
 *
 * @param sender the agent that asks, or null when it gave no name
 * @param channels where to show it besides the dashboard (slack, github, ...), in the asker's order
 * @param options the answers to choose from, or null for free text
 * @param blocking whether the asker waits for the answer before it goes on
 */
public record Asked(String sender, String recipient, List<String> channels, String content, String context,
                    List<String> options, Priority priority, boolean blocking) {
  public Asked {
    sender = Canonical.text(sender);
    recipient = Canonical.text(recipient);
    channels = channels == null ? List.of() : List.copyOf(channels);
    options = options == null || options.isEmpty() ? null : options.stream().map(Canonical::text).toList();
  }
}
