package ark.broker.bus;

import ark.broker.auth.Actor;
import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A service on the event bus, declared once as a Java interface whose operations return futures, the shape of
 * Vert.x service proxies without their generated code: the room that owns the service {@link #serve}s an
 * implementation of the interface on one address, and every other room calls a {@link #client} implementing the
 * same interface. An operation is added to the interface alone, and the compiler holds the implementation and
 * every caller to it. Calls never leave the process: arguments and results pass by reference.
 *
 * <p>Default methods of the interface are conveniences that run in the caller, built on the operations.
 */
public final class BusContract<S> {
  private static final Logger LOG = LoggerFactory.getLogger(BusContract.class);

  private final Class<S> contract;
  private final String address;
  private final Map<String, Method> operations = new HashMap<>();

  private BusContract(Class<S> contract, String address) {
    if (!contract.isInterface()) {
      throw new IllegalArgumentException(contract.getName() + " is not an interface");
    }
    for (Method method : contract.getMethods()) {
      if (method.isDefault() || Modifier.isStatic(method.getModifiers())) {
        continue;
      }
      if (method.getReturnType() != Future.class) {
        throw new IllegalArgumentException(contract.getSimpleName() + "." + method.getName() + " must return a Future");
      }
      if (operations.put(method.getName(), method) != null) {
        throw new IllegalArgumentException(contract.getSimpleName() + "." + method.getName()
            + " is overloaded: a bus operation is called by its name alone");
      }
    }
    this.contract = contract;
    this.address = address;
  }

  /** The service {@code contract} declares, served on {@code address}. */
  public static <S> BusContract<S> of(Class<S> contract, String address) {
    return new BusContract<>(contract, address);
  }

  public String address() {
    return address;
  }

  /** What goes over the bus for one call: the operation's name and its arguments. */
  record Call(String operation, Object[] arguments) {
  }

  /** What comes back from a call that succeeded, which may be null. */
  record Result(Object value) {
  }

  /**
   * The service, as callers reach it: each operation is a request that fails with a {@link StoreFailure} when
   * refused, when it fails, or without an answer in {@code timeoutMillis} (also while nothing serves it yet).
   * Immutable, so one client serves every verticle and event loop.
   */
  public S client(EventBus bus, long timeoutMillis) {
    DeliveryOptions options = new DeliveryOptions().setSendTimeout(timeoutMillis);
    InvocationHandler handler = (proxy, method, arguments) -> {
      if (method.isDefault()) {
        return InvocationHandler.invokeDefault(proxy, method, arguments);
      }
      if (method.getDeclaringClass() == Object.class) {
        return switch (method.getName()) {
          case "equals" -> proxy == arguments[0];
          case "hashCode" -> System.identityHashCode(proxy);
          default -> "client of " + contract.getSimpleName() + " at " + address;
        };
      }
      return bus.<Result>request(address, new Call(method.getName(), arguments), options).transform(reply -> reply.succeeded()
          ? Future.succeededFuture(reply.result().body().value())
          : Future.failedFuture(StoreFailure.of(reply.cause())));
    };
    return contract.cast(Proxy.newProxyInstance(contract.getClassLoader(), new Class<?>[] {contract}, handler));
  }

  /**
   * Serves {@code implementation} on this contract's address, on the caller's event loop, until the consumer is
   * unregistered. A failure of the implementation reaches the caller as {@link StoreFailure#of} tells it: a refusal
   * as it is, anything unexpected as an internal error (logged here, its message kept from the caller).
   */
  public MessageConsumer<Call> serve(EventBus bus, S implementation) {
    return bus.localConsumer(address, message -> {
      Call call = message.body();
      Method operation = operations.get(call.operation());
      Future<?> outcome;
      try {
        outcome = (Future<?>) operation.invoke(implementation, call.arguments());
      } catch (InvocationTargetException e) {
        outcome = Future.failedFuture(e.getCause());
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
      reply(message, call, outcome);
    });
  }

  private void reply(Message<Call> message, Call call, Future<?> outcome) {
    outcome.onComplete(done -> {
      if (done.succeeded()) {
        message.reply(new Result(done.result()));
        return;
      }
      StoreFailure refusal = StoreFailure.of(done.cause());
      if (refusal.reason() == StoreFailure.Reason.INTERNAL) {
        LOG.error("{}.{} failed{}", contract.getSimpleName(), call.operation(), requestOf(call), done.cause());
        refusal = new StoreFailure(StoreFailure.Reason.INTERNAL, "internal error");
      } else if (refusal.reason() == StoreFailure.Reason.UNAVAILABLE) {
        LOG.warn("{}.{} refused{}: {}", contract.getSimpleName(), call.operation(), requestOf(call), refusal.getMessage());
      }
      message.reply(refusal.asReply());
    });
  }

  /** The request the call works for, as its actor names it, for log lines; empty when it names none. */
  private static String requestOf(Call call) {
    if (call.arguments() != null) {
      for (Object argument : call.arguments()) {
        if (argument instanceof Actor actor) {
          return actor.logSuffix();
        }
      }
    }
    return "";
  }

  @Override
  public String toString() {
    return contract.getSimpleName() + " at " + address + " " + Arrays.toString(operations.keySet().toArray());
  }
}
