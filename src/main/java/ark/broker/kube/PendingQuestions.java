package ark.broker.kube;

import ark.broker.question.Question;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The pending questions that belong to something in the cluster (the Query that asked them, the A2ATask they
 * ask about), by that thing, oldest first: this room's copy of the part of the view it needs, fed by the
 * store's list and its changes.
 *
 * @param <K> what a question belongs to
 */
final class PendingQuestions<K> {
  private static final Comparator<Question> OLDEST_FIRST =
      Comparator.comparing(Question::createdAt).thenComparing(Question::id);

  private final Function<Question, K> owner;
  private final Map<String, Question> byId = new HashMap<>();
  private final Map<K, NavigableSet<Question>> byOwner = new HashMap<>();

  /** @param owner what a question belongs to, or null for a question this index does not hold */
  PendingQuestions(Function<Question, K> owner) {
    this.owner = owner;
  }

  /** Takes a question as the store last showed it; an older snapshot than the one held is ignored. */
  void apply(Question question) {
    K key = owner.apply(question);
    if (key == null) {
      return;
    }
    Question known = byId.get(question.id());
    if (known != null && known.resourceVersion() >= question.resourceVersion()) {
      return;
    }
    if (known != null) {
      remove(known);
    }
    if (question.isPending()) {
      byId.put(question.id(), question);
      byOwner.computeIfAbsent(key, k -> new TreeSet<>(OLDEST_FIRST)).add(question);
    }
  }

  /** The owner's pending questions, oldest first; empty when it has none. */
  List<Question> of(K key) {
    NavigableSet<Question> questions = byOwner.get(key);
    return questions == null ? List.of() : List.copyOf(questions);
  }

  Set<K> owners() {
    return Set.copyOf(byOwner.keySet());
  }

  private void remove(Question question) {
    byId.remove(question.id());
    K key = owner.apply(question);
    NavigableSet<Question> questions = byOwner.get(key);
    questions.remove(question);
    if (questions.isEmpty()) {
      byOwner.remove(key);
    }
  }
}
