package ark.broker.auth;

import java.util.Locale;

/** How a principal proved who it is; recorded with every action so the audit trail can tell. */
public enum AuthMethod {
  /** A static bearer token from {@code auth.tokensFile}. */
  TOKEN,
  /** An access token (JWT) from the OIDC / OAuth 2.1 issuer {@code auth.oidc.issuer}. */
  OIDC,
  /** Nothing: the broker runs open (no auth configured, loopback only, or {@code auth.mode: none}). */
  ANONYMOUS,
  /** A signed request from a channel's service (Slack, GitHub): the account that acted, mapped through the directory. */
  CHANNEL,
  /** The broker itself: expiry, channel delivery, Query status. */
  INTERNAL,
  /** No token, but an address in {@code auth.clusterNetworks}: Ark's in-cluster callers, on Ark's broker routes. */
  NETWORK;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
