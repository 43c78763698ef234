package ark.broker.mcp.protocol;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;

/**
 * Who an HTTP request to the MCP endpoint comes from, as the server's host decides (an authorization server's
 * access token, a static token, nothing at all). The protocol layer keeps what it proves opaque; it binds each
 * session to the {@link ClientIdentity#owner() owner} that initialized it, so no one else can use the session,
 * its tasks or its streams.
 */
public interface ClientAuthentication {
  /** Everyone is the same anonymous owner: for servers that authenticate no one. */
  ClientAuthentication NONE = request -> Future.succeededFuture(new ClientIdentity("anonymous", null));

  /** The request's identity, or a failed future with {@link Refused} to answer it with a status instead. */
  Future<ClientIdentity> authenticate(HttpServerRequest request);

  /**
   * @param owner       a stable name for whoever proved themselves, to which sessions are bound
   * @param credentials what the host's tools need to act for it; read through {@link RequestContext#credentials()}
   */
  record ClientIdentity(String owner, Object credentials) {
  }

  /**
   * A request refused before it reaches the protocol: 401 (with a {@code WWW-Authenticate} challenge that tells
   * the client where to get a token), 400, 403 or 503.
   */
  final class Refused extends RuntimeException {
    private final int status;
    private final String challenge;

    public Refused(int status, String challenge, String message) {
      super(message, null, false, false);
      this.status = status;
      this.challenge = challenge;
    }

    public int status() {
      return status;
    }

    /** The {@code WWW-Authenticate} value, or null. */
    public String challenge() {
      return challenge;
    }
  }
}
