package ark.broker;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The stores' default bounds fit the heaps a broker is run with; bounds that cannot fit a heap are refused. */
class HeapBudgetTest {
  private static final long MIB = 1024 * 1024;
  /**
   * What {@code Runtime.maxMemory()} says under the serial collector for the README's command on a machine of
   * 2 GiB (a heap of a quarter of it, without one survivor space), a little less for the memory the kernel keeps.
   */
  private static final long README_HEAP_ON_2_GIB = 480 * MIB;

  @Test
  void theDefaultBoundsFitTheHeapOfTheReadmesCommandOnAMachineOf2GiB() {
    JsonObject defaults = ConfigLoader.bundledDefaults();

    assertThat(HeapBudget.needed(defaults)).isLessThanOrEqualTo(README_HEAP_ON_2_GIB);
    assertThatNoException().isThrownBy(() -> HeapBudget.check(defaults, README_HEAP_ON_2_GIB));
  }

  @Test
  void boundsThatCannotFitTheHeapAreRefusedNamingBothNumbers() {
    JsonObject config = ConfigLoader.bundledDefaults();
    config.getJsonObject("memory").put("maxBytes", 1024 * MIB);

    assertThatThrownBy(() -> HeapBudget.check(config, 768 * MIB)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("memory.maxBytes 1024 MiB")
        .hasMessageContaining("need a heap of " + HeapBudget.needed(config) / MIB + " MiB")
        .hasMessageContaining("more than the 768 MiB this JVM may use");
  }
}
