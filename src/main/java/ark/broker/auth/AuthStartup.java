package ark.broker.auth;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The start-up decision: authenticate, run open, or refuse to start. Pure, so every case is a unit test.
 *
 * <ul>
 *   <li>{@code auth.mode: none}: open, with a warning.</li>
 *   <li>auth configured (a tokens file or an OIDC issuer) and mode {@code auto} or {@code required}: authenticate.</li>
 *   <li>nothing configured, mode {@code auto}, every port bound to loopback: open, with a warning (the local
 *       developer's default: nothing to set up).</li>
 *   <li>nothing configured, mode {@code auto}, any port bound elsewhere: refuse, naming the settings; an open
 *       broker reachable from the network would let anyone answer and cancel everyone's questions.</li>
 *   <li>nothing configured, mode {@code required}: refuse.</li>
 * </ul>
 *
 * @param message the warning to log once (open) or why the broker does not start (refuse); empty otherwise
 */
public record AuthStartup(Outcome outcome, String message) {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  public enum Outcome { AUTHENTICATE, OPEN, REFUSE }

  /**
   * @param bindHosts each setting that names a listening host and its value, such as
   *     {@code {"http.host": "0.0.0.0", "mcp.host": "127.0.0.1"}} (the order is kept in messages)
   */
  public static AuthStartup decide(AuthSettings settings, Map<String, String> bindHosts) {
    if (settings.mode() == AuthMode.NONE) {
      return new AuthStartup(Outcome.OPEN, "auth.mode is none: every request is anonymous with admin rights"
          + (settings.configured() ? ", and the configured tokens file / OIDC issuer are ignored" : "")
          + "; bound to " + describe(bindHosts));
    }
    if (settings.configured()) {
      return new AuthStartup(Outcome.AUTHENTICATE, "");
    }
    String howToConfigure = "set auth.tokensFile (AUTH_TOKENS_FILE) or auth.oidc.issuer (AUTH_OIDC_ISSUER) with "
        + "auth.oidc.audience and auth.oidc.jwksUrl";
    if (settings.mode() == AuthMode.REQUIRED) {
      return new AuthStartup(Outcome.REFUSE, "auth.mode is required but no authentication is configured: "
          + howToConfigure);
    }
    List<String> exposed = bindHosts.entrySet().stream().filter(host -> !isLoopback(host.getValue()))
        .map(host -> host.getKey() + "=" + host.getValue()).toList();
    if (exposed.isEmpty()) {
      return new AuthStartup(Outcome.OPEN, "no authentication is configured: every request is anonymous with admin "
          + "rights, which is safe only because the broker listens on loopback (" + describe(bindHosts) + "); "
          + howToConfigure + " before listening on other addresses");
    }
    return new AuthStartup(Outcome.REFUSE, "refusing to listen on " + String.join(", ", exposed)
        + " without authentication: " + howToConfigure + ", or set auth.mode to none (AUTH_MODE=none) to run open "
        + "on purpose, or bind to 127.0.0.1");
  }

  /**
   * Whether a bind host is reachable only from this machine: {@code localhost}, 127.0.0.0/8, {@code ::1}. Any
   * other name is treated as reachable, without a DNS lookup, so the decision is the same everywhere.
   */
  static boolean isLoopback(String host) {
    String text = host == null ? "" : host.trim().toLowerCase(Locale.ROOT);
    if (text.startsWith("[") && text.endsWith("]")) {
      text = text.substring(1, text.length() - 1);
    }
    if (text.equals("localhost")) {
      return true;
    }
    if (IPV4.matcher(text).matches()) {
      for (String octet : text.split("\\.")) {
        if (Integer.parseInt(octet) > 255) {
          return false;
        }
      }
      return text.startsWith("127.");
    }
    if (!text.contains(":")) {
      return false; // a host name (or nothing): it could resolve to anything
    }
    try {
      // An IPv6 literal: parsed, never looked up (a malformed one fails without a lookup too).
      return InetAddress.getByName(text).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static String describe(Map<String, String> bindHosts) {
    return String.join(", ", bindHosts.entrySet().stream().map(host -> host.getKey() + "=" + host.getValue()).toList());
  }
}
