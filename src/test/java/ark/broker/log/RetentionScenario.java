package ark.broker.log;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.List;

/**
 * A random life of a store: its bounds (small, so items leave by bytes and by age often) and what happens to it, one
 * operation after the other.
 */
public record RetentionScenario(long maxBytes, long maxAgeMillis, List<Operation> operations) {
  /** Keys that writes and deletions pick from: few, so deletions find something. */
  static final int KEYS = 4;
  static final int GROUPS = 3;

  /** What may happen to a store. */
  public sealed interface Operation {
  }

  /** A write: an item under a key and a group, weighing about {@code padding} bytes more than an empty one. */
  public record Write(int key, int group, int padding, Long ttlMillis) implements Operation {
  }

  /** The deletion of every item of a key. */
  public record Delete(int key) implements Operation {
  }

  /** The deletion of every item of a group under a key. */
  public record DeleteGroup(int key, int group) implements Operation {
  }

  /** The deletion of every item. */
  public record Purge() implements Operation {
  }

  /** The clock moves on, and the store trims as its timer does. */
  public record Advance(long millis) implements Operation {
  }

  /** The log forgets what the view no longer needs: everything up to its floor. */
  public record Snapshot() implements Operation {
  }

  /** The store starts again from what its log holds. */
  public record Restart() implements Operation {
  }

  /** A second replica, reading the same log behind the first, applies what it has not yet. */
  public record CatchUp() implements Operation {
  }

  /** Scenarios of a store; {@code deletesByKey} for one that also deletes the items of one key. */
  public static Arbitrary<RetentionScenario> any(boolean deletesByKey) {
    return any(deletesByKey, false);
  }

  /** Scenarios of a store that may also delete the items of one key, and those of one group under one key. */
  public static Arbitrary<RetentionScenario> any(boolean deletesByKey, boolean deletesByGroup) {
    Arbitrary<Operation> write = Combinators.combine(Arbitraries.integers().between(0, KEYS - 1),
        Arbitraries.integers().between(0, GROUPS - 1), Arbitraries.integers().between(0, 400),
        Arbitraries.longs().between(1, 30_000).injectNull(0.7)).as(Write::new);
    List<Tuple.Tuple2<Integer, Arbitrary<? extends Operation>>> operations = new ArrayList<>(List.of(
        Tuple.of(40, write),
        Tuple.of(deletesByKey ? 4 : 10, Arbitraries.just(new Purge())),
        Tuple.of(10, Arbitraries.longs().between(0, 20_000).map(Advance::new)),
        Tuple.of(5, Arbitraries.just(new Snapshot())),
        Tuple.of(3, Arbitraries.just(new Restart())),
        Tuple.of(6, Arbitraries.just(new CatchUp()))));
    if (deletesByKey) {
      operations.add(Tuple.of(10, Arbitraries.integers().between(0, KEYS - 1).map(Delete::new)));
    }
    if (deletesByGroup) {
      operations.add(Tuple.of(8, Combinators.combine(Arbitraries.integers().between(0, KEYS - 1),
          Arbitraries.integers().between(0, GROUPS - 1)).as(DeleteGroup::new)));
    }
    @SuppressWarnings("unchecked")
    Arbitrary<Operation> operation = Arbitraries.frequencyOf(operations.toArray(Tuple.Tuple2[]::new));
    return Combinators.combine(Arbitraries.longs().between(1_500, 8_000), Arbitraries.longs().between(5_000, 60_000),
        operation.list().ofMinSize(1).ofMaxSize(400).withSizeDistribution(RandomDistribution.uniform())).as(RetentionScenario::new);
  }
}
