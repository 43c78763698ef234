package ark.broker.kube;

import ark.broker.auth.Actor;
import ark.broker.bus.QuestionStore;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionStatus;
import io.vertx.core.Future;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * A reconciler's {@link PendingQuestions}, kept current from the store's changes and rebuilt from the store's
 * list on every full pass. While a rebuild lists, changes go to both copies, so swapping the new one in loses
 * none; until the first rebuild the index lacks older questions, so nothing may be released on its word.
 *
 * @param <K> what a question belongs to
 */
final class PendingIndex<K> {
  private static final QuestionFilter PENDING = new QuestionFilter(QuestionStatus.PENDING, null, null);

  private final Function<Question, K> owner;
  private PendingQuestions<K> current;
  private PendingQuestions<K> rebuilding;
  private boolean complete;

  PendingIndex(Function<Question, K> owner) {
    this.owner = owner;
    this.current = new PendingQuestions<>(owner);
  }

  /** Takes a change; returns what the question belongs to, if the index is complete enough to act on it, or null. */
  K changed(Question question) {
    K key = owner.apply(question);
    if (key == null) {
      return null;
    }
    current.apply(question);
    if (rebuilding != null) {
      rebuilding.apply(question);
    }
    return complete ? key : null;
  }

  /** Lists every pending question again; completes with everything that now has one. */
  Future<Set<K>> rebuild(QuestionStore store) {
    PendingQuestions<K> fresh = new PendingQuestions<>(owner);
    rebuilding = fresh;
    return store.forEach(Actor.BROKER, PENDING, fresh::apply)
        .andThen(listed -> rebuilding = null)
        .map(listed -> {
          current = fresh;
          complete = true;
          return current.owners();
        });
  }

  /** The owner's pending questions, oldest first. */
  List<Question> of(K key) {
    return current.of(key);
  }
}
