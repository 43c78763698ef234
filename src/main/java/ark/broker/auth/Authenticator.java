package ark.broker.auth;

import java.util.Optional;

/** One way to prove who one is. Implementations may block (files, HTTP): callers run them on a worker thread. */
interface Authenticator {
  /**
   * @param token the bearer token, already read from its header
   * @return the grant, or empty if this authenticator does not know the token (the next one may)
   * @throws AuthFailure when the token is this authenticator's kind and fails its checks
   */
  Optional<Grant> authenticate(String token);
}
