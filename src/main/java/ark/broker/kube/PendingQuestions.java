package ark.broker.kube;

import ark.broker.question.QueryRef;
import ark.broker.question.Question;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pending questions that name a Query, by Query, oldest first: this room's copy of the part of the
 * view it needs, fed by the store's list and its changes.
 */
final class PendingQuestions {
  private static final Comparator<Question> OLDEST_FIRST =
      Comparator.comparing(Question::createdAt).thenComparing(Question::id);

  private final Map<String, Question> byId = new HashMap<>();
  private final Map<QueryRef, NavigableSet<Question>> byQuery = new HashMap<>();

  /** Takes a question as the store last showed it; an older snapshot than the one held is ignored. */
  void apply(Question question) {
    if (question.query() == null) {
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
      byQuery.computeIfAbsent(question.query(), ref -> new TreeSet<>(OLDEST_FIRST)).add(question);
    }
  }

  /** The Query's pending questions, oldest first; empty when it has none. */
  List<Question> of(QueryRef query) {
    NavigableSet<Question> questions = byQuery.get(query);
    return questions == null ? List.of() : List.copyOf(questions);
  }

  Set<QueryRef> queries() {
    return Set.copyOf(byQuery.keySet());
  }

  private void remove(Question question) {
    byId.remove(question.id());
    NavigableSet<Question> questions = byQuery.get(question.query());
    questions.remove(question);
    if (questions.isEmpty()) {
      byQuery.remove(question.query());
    }
  }
}
