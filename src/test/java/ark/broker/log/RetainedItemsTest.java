package ark.broker.log;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dropped items a store keeps until it compacts them: those that leave from the head when it trims are no longer
 * counted, so a store emptied by deletions and trimmed can drop more than 64 items again (every delete and purge of
 * Ark's stores did fail there, and was skipped, once that many had been dropped in all).
 */
class RetainedItemsTest {
  private final RetainedItems<Kept> retained = new RetainedItems<>();
  private final List<Kept> forgotten = new ArrayList<>();
  private long position;

  private static final class Kept extends RetainedItems.Item {
    Kept(long position) {
      super(position, 0, Long.MAX_VALUE, 10);
    }
  }

  private void add(int items) {
    for (int i = 0; i < items; i++) {
      retained.add(new Kept(++position));
    }
  }

  private void dropAll() {
    retained.dropAll(retained.all(), item -> true, forgotten::add);
  }

  @Test
  void aStoreEmptiedByDeletionsAndTrimmedDropsMoreThan64ItemsAgain() {
    for (int round = 0; round < 3; round++) {
      add(50);
      dropAll();
      retained.trim(0, Long.MAX_VALUE, Long.MAX_VALUE, forgotten::add);
      assertThat(retained.all().isEmpty()).as("trimmed after round %s", round).isTrue();
    }

    add(100);
    dropAll();

    assertThat(forgotten).hasSize(250);
    assertThat(retained.size()).isZero();
    assertThat(retained.bytes()).isZero();
    assertThat(retained.all().kept()).isEmpty();
  }

  @Test
  void droppedItemsLeavingFromTheHeadLeaveTheKeptOnesInOrder() {
    add(100);
    for (int i = 0; i < 40; i++) {
      retained.drop(retained.all().get(i));
    }
    retained.trim(0, Long.MAX_VALUE, Long.MAX_VALUE, forgotten::add);
    assertThat(retained.all().size()).as("the 40 dropped ones left from the head").isEqualTo(60);

    for (int i = 0; i < 59; i++) {
      retained.drop(retained.all().kept().get(0));
    }

    assertThat(retained.all().kept()).extracting(RetainedItems.Item::position).containsExactly(100L);
    assertThat(retained.size()).isOne();
  }
}
