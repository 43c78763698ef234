package ark.broker.bus;

import ark.broker.question.QuestionNotFoundException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** A service declared by an interface: served by its owner, called through a client of the same interface. */
class BusContractTest {
  /** A small contract of the store's shape: writes, reads, a convenience in the caller. */
  public interface Notes {
    Future<Void> put(String key, String text);

    Future<String> get(String key);

    Future<Integer> count();

    default Future<String> getOrElse(String key, String otherwise) {
      return get(key).recover(failure -> Future.succeededFuture(otherwise));
    }
  }

  /** The owner's side: its own state, its own refusals. */
  static final class NotesInMemory implements Notes {
    final Map<String, String> notes = new ConcurrentHashMap<>();

    @Override
    public Future<Void> put(String key, String text) {
      if (key.isBlank()) {
        throw new IllegalArgumentException("a blank key is a bug of the caller");
      }
      notes.put(key, text);
      return Future.succeededFuture();
    }

    @Override
    public Future<String> get(String key) {
      String text = notes.get(key);
      return text != null ? Future.succeededFuture(text) : Future.failedFuture(new QuestionNotFoundException(key));
    }

    @Override
    public Future<Integer> count() {
      return Future.succeededFuture(notes.size());
    }
  }

  static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    BusCodecs.register(vertx.eventBus());
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void aClientCallsTheOperationsTheOwnerServesAndGetsTheirResults() throws Exception {
    BusContract<Notes> contract = BusContract.of(Notes.class, "notes.results");
    NotesInMemory owner = new NotesInMemory();
    contract.serve(vertx.eventBus(), owner).completion().await(10, TimeUnit.SECONDS);
    Notes client = contract.client(vertx.eventBus(), 10_000);

    client.put("a", "first").await(10, TimeUnit.SECONDS);

    assertThat(owner.notes).containsEntry("a", "first");
    assertThat(client.get("a").await(10, TimeUnit.SECONDS)).isEqualTo("first");
    assertThat(client.count().await(10, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(client.getOrElse("missing", "none").await(10, TimeUnit.SECONDS)).isEqualTo("none");
  }

  @Test
  void refusalsArriveAsStoreFailuresAndBugsAsInternalErrorsWithoutTheirMessage() throws Exception {
    BusContract<Notes> contract = BusContract.of(Notes.class, "notes.failures");
    contract.serve(vertx.eventBus(), new NotesInMemory()).completion().await(10, TimeUnit.SECONDS);
    Notes client = contract.client(vertx.eventBus(), 10_000);

    StoreFailure notFound = catchThrowableOfType(StoreFailure.class, () -> client.get("nope").await(10, TimeUnit.SECONDS));
    StoreFailure bug = catchThrowableOfType(StoreFailure.class, () -> client.put(" ", "x").await(10, TimeUnit.SECONDS));

    assertThat(notFound.reason()).isEqualTo(StoreFailure.Reason.NOT_FOUND);
    assertThat(bug.reason()).isEqualTo(StoreFailure.Reason.INTERNAL);
    assertThat(bug).hasMessage("internal error");
  }

  @Test
  void nothingServingIsUnavailable() {
    Notes client = BusContract.of(Notes.class, "notes.nobody").client(vertx.eventBus(), 10_000);

    StoreFailure failure = catchThrowableOfType(StoreFailure.class, () -> client.count().await(10, TimeUnit.SECONDS));

    assertThat(failure.reason()).isEqualTo(StoreFailure.Reason.UNAVAILABLE);
  }

  public interface Overloaded {
    Future<Void> put(String key);

    Future<Void> put(String key, String text);
  }

  public interface Blocking {
    String get(String key);
  }

  @Test
  void aContractCallsItsOperationsByNameAndEachReturnsAFuture() {
    assertThatThrownBy(() -> BusContract.of(Overloaded.class, "overloaded")).hasMessageContaining("overloaded");
    assertThatThrownBy(() -> BusContract.of(Blocking.class, "blocking")).hasMessageContaining("must return a Future");
  }
}
