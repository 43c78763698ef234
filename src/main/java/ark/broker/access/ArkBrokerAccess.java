package ark.broker.access;

import ark.broker.auth.Actor;
import ark.broker.auth.AuthFailure;
import ark.broker.auth.Principal;
import ark.broker.auth.PrincipalKind;
import io.vertx.core.Future;

import java.util.function.Supplier;

/**
 * Who may use the stores of Ark's broker (memory, streams, events, sessions, traces): Ark's own services, which
 * write and read every Query's data, and admins. A service's token proves it; Ark's in-cluster callers that cannot
 * send one (the controller, ark-api) come from the cluster networks the configuration trusts. Agents and people
 * reach questions, not these stores.
 */
public final class ArkBrokerAccess {
  private ArkBrokerAccess() {
  }

  /** {@code work}, if the actor may use these stores; else a future failed with the refusal (403). */
  public static <T> Future<T> guarded(Actor actor, Supplier<Future<T>> work) {
    try {
      require(actor);
      return work.get();
    } catch (RuntimeException refused) {
      return Future.failedFuture(refused);
    }
  }

  /** Refuses (403) an actor that is neither a service nor an admin. */
  public static void require(Actor actor) {
    Principal principal = actor.principal();
    if (principal.kind() != PrincipalKind.SERVICE && !principal.isAdmin()) {
      throw AuthFailure.forbidden(principal.name() + " is " + principal.kind().wireName() + ": only services and admins"
          + " use the stores of Ark's broker (memory, streams, events, sessions, traces)");
    }
  }

  /**
   * Refuses (403) a purge of a whole store by anyone but an admin: a service writes and deletes the data of the
   * Queries it serves, and a caller from a trusted network has no credential that could say it is an admin.
   */
  public static void requirePurge(Actor actor) {
    Principal principal = actor.principal();
    if (!principal.isAdmin()) {
      throw AuthFailure.forbidden(principal.name() + " is " + principal.kind().wireName() + ": only admins purge a whole"
          + " store of Ark's broker; delete one Query's or one conversation's data instead");
    }
  }
}
