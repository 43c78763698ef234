package ark.broker.auth;

import java.util.Locale;

/** What sort of caller a principal is; the store decides what each kind may see and do. */
public enum PrincipalKind {
  /** An AI agent asking questions as itself ({@code ark://agents/...}). */
  AGENT,
  /** A person answering questions ({@code ark://users/...}). */
  HUMAN,
  /** A program acting for agents, such as Ark's executor; it may name the agent it acts for (see {@link Actor}). */
  SERVICE,
  /** May see and do everything. */
  ADMIN;

  /** The name in configuration files, tokens and JSON: {@code agent}, {@code human}, {@code service}, {@code admin}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** @throws IllegalArgumentException for anything but the four wire names */
  public static PrincipalKind parse(String text) {
    if (text != null) {
      for (PrincipalKind kind : values()) {
        if (kind.wireName().equals(text)) {
          return kind;
        }
      }
    }
    throw new IllegalArgumentException("a kind must be agent, human, service or admin, not '" + text + "'");
  }
}
