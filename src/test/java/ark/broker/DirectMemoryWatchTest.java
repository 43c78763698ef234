package ark.broker;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The process exits once direct memory has stayed full for a few checks in a row, and not for a moment's peak. */
class DirectMemoryWatchTest {
  @Test
  void fullForEveryCheckInARowAndOnlyThen() {
    AtomicLong used = new AtomicLong();
    DirectMemoryWatch watch = new DirectMemoryWatch(used::get, 1000);

    used.set(960);
    for (int i = 1; i < DirectMemoryWatch.FULL_CHECKS; i++) {
      assertThat(watch.full()).as("check %d of a full memory", i).isFalse();
    }
    used.set(900);
    assertThat(watch.full()).as("room again: the count starts over").isFalse();
    used.set(1000);
    for (int i = 1; i < DirectMemoryWatch.FULL_CHECKS; i++) {
      assertThat(watch.full()).isFalse();
    }
    assertThat(watch.full()).as("full for every check in a row").isTrue();
  }
}
