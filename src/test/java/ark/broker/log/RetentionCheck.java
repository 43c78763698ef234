package ark.broker.log;

import ark.broker.log.RetentionScenario.Advance;
import ark.broker.log.RetentionScenario.CatchUp;
import ark.broker.log.RetentionScenario.Delete;
import ark.broker.log.RetentionScenario.DeleteGroup;
import ark.broker.log.RetentionScenario.Operation;
import ark.broker.log.RetentionScenario.Purge;
import ark.broker.log.RetentionScenario.Restart;
import ark.broker.log.RetentionScenario.Snapshot;
import ark.broker.log.RetentionScenario.Write;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plays a {@link RetentionScenario} on a store's view and on the {@link RetentionModel} side by side, and after every
 * operation holds what the view's reads show (of all items, and of each key through its index) and what it weighs to
 * what the model keeps. The log is a plain map of positions to records, which forgets up to the view's floor on a
 * snapshot; a restart replays what it holds into a fresh view, and a second replica applies it behind the first, on
 * catch-ups. Each replica has a model of its own, applying the same records at the same times: a replica applying a
 * record later may keep what another pushed out by bytes while an item since expired still weighed.
 */
public final class RetentionCheck<R, V> {
  private static final long START = 1_767_225_600_000L;

  private final RetainingStore<R, V> store;
  private final RetentionScenario scenario;
  /** The records the log holds, each with what it does to the model. */
  private final TreeMap<Long, Entry<R>> log = new TreeMap<>();
  private long now = START;
  private long lastPosition;
  private int written;
  private Replica primary;
  private final Replica second;

  /** A record of the log and what applying it does to the model. */
  private record Entry<R>(R record, Consumer<RetentionModel> effect) {
  }

  /** A view and the model it is held to, and the last position both applied. */
  private final class Replica {
    final V view = store.view(scenario.maxBytes(), scenario.maxAgeMillis());
    final RetentionModel model = new RetentionModel(scenario.maxBytes(), scenario.maxAgeMillis());
    long applied;

    void apply(long position, R record, Entry<R> entry) {
      store.apply(view, position, record, now);
      entry.effect().accept(model);
      applied = position;
    }

    /** Applies what the log holds after what this replica applied, as read back from the log. */
    void catchUp() {
      log.tailMap(applied, false).forEach((position, entry) -> apply(position, store.readBack(entry.record()), entry));
    }

    void trim() {
      store.trim(view, now);
      model.trim(now);
    }

    /** What a read shows now is what the model keeps: it trims first, as every read does. */
    void holds(String when) {
      trim();
      Map<String, RetainingStore.Shown> shown = new TreeMap<>();
      Map<String, RetainingStore.Shown> expected = new TreeMap<>();
      shown.put("(all)", store.shown(view, null));
      expected.put("(all)", store.expected(model.live(), null));
      for (int key = 0; key < RetentionScenario.KEYS; key++) {
        shown.put(key(key), store.shown(view, key(key)));
        expected.put(key(key), store.expected(model.live(), key(key)));
      }
      for (int index = 0; index < RetentionScenario.GROUPS; index++) {
        String group = group(index);
        RetainingStore.Shown ofGroup = store.shownOfGroup(view, group);
        if (ofGroup != null) {
          shown.put(group, ofGroup);
          expected.put(group, RetainingStore.Shown.of(model.live().stream()
              .filter(item -> group.equals(item.group())).toList()));
        }
      }
      assertThat(shown).as("what reads show %s", when).isEqualTo(expected);
      assertThat(store.bytes(view)).as("the bytes kept %s", when).isEqualTo(model.bytes());
      if (!model.live().isEmpty()) {
        assertThat(store.floor(view)).as("the floor %s: the log keeps every live item", when)
            .isLessThan(model.live().get(0).position());
      }
    }
  }

  private RetentionCheck(RetainingStore<R, V> store, RetentionScenario scenario) {
    this.store = store;
    this.scenario = scenario;
    this.primary = new Replica();
    this.second = new Replica();
  }

  /** Plays {@code scenario} on {@code store}; fails at the first operation after which a view is not its model. */
  public static <R, V> void run(RetainingStore<R, V> store, RetentionScenario scenario) {
    new RetentionCheck<>(store, scenario).play();
  }

  private void play() {
    for (int step = 0; step < scenario.operations().size(); step++) {
      Operation operation = scenario.operations().get(step);
      perform(operation);
      primary.holds("after step " + step + " (" + operation + ")");
    }
    second.catchUp();
    second.holds("on the second replica, caught up at the end");
  }

  private void perform(Operation operation) {
    if (operation instanceof Write write) {
      long at = now;
      long expiresAt = write.ttlMillis() == null ? Long.MAX_VALUE : at + write.ttlMillis();
      R record = store.written("w" + written++, key(write.key()), group(write.group()), write.padding(), at, expiresAt);
      long position = lastPosition + 1;
      RetentionModel.Item item = store.kept(position, record);
      append(record, model -> model.add(item, now));
    } else if (operation instanceof Delete delete) {
      String key = key(delete.key());
      append(store.deleted(key, now), model -> model.drop(item -> item.key().equals(key), now));
    } else if (operation instanceof DeleteGroup delete) {
      String key = key(delete.key());
      String group = group(delete.group());
      append(store.deletedGroup(key, group, now),
          model -> model.drop(item -> item.key().equals(key) && item.group().equals(group), now));
    } else if (operation instanceof Purge) {
      append(store.purged(now), model -> model.drop(item -> true, now));
    } else if (operation instanceof Advance advance) {
      now += advance.millis();
      primary.trim();
      second.trim();
    } else if (operation instanceof Snapshot) {
      log.headMap(Math.min(store.floor(primary.view), second.applied), true).clear();
    } else if (operation instanceof Restart) {
      primary = new Replica();
      primary.catchUp();
    } else if (operation instanceof CatchUp) {
      second.catchUp();
      second.holds("on the second replica, caught up");
    }
  }

  /** Appends to the log, and applies it at once on the first replica, as the writer's own record. */
  private void append(R record, Consumer<RetentionModel> effect) {
    Entry<R> entry = new Entry<>(record, effect);
    log.put(++lastPosition, entry);
    primary.apply(lastPosition, record, entry);
  }

  private static String key(int key) {
    return "k" + key;
  }

  private static String group(int group) {
    return "g" + group;
  }
}
