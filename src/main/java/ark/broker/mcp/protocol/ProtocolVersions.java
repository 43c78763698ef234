package ark.broker.mcp.protocol;

import java.util.List;

/** The MCP revisions this server speaks, newest first. */
public final class ProtocolVersions {
  public static final String LATEST = "2025-11-25";
  /** What a request without an MCP-Protocol-Version header is taken to be, as the spec says. */
  public static final String ASSUMED_WITHOUT_HEADER = "2025-03-26";
  public static final List<String> SUPPORTED = List.of(LATEST, "2025-06-18", "2025-03-26");

  private ProtocolVersions() {
  }

  public static boolean isSupported(String version) {
    return SUPPORTED.contains(version);
  }

  /** The version to answer an initialize with: the client's if we speak it, else our newest. */
  public static String negotiate(String requested) {
    return isSupported(requested) ? requested : LATEST;
  }

  /** SSE priming events (an id with empty data) came with 2025-11-25; older clients may choke on them. */
  public static boolean sendsPrimingEvents(String version) {
    return version.compareTo(LATEST) >= 0;
  }
}
