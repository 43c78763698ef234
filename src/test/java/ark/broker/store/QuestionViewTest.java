package ark.broker.store;

import ark.broker.question.Attribution;
import ark.broker.question.Delivery;
import ark.broker.question.EventType;
import ark.broker.question.InvalidQuestionException;
import ark.broker.question.NewQuestion;
import ark.broker.question.Priority;
import ark.broker.question.Question;
import ark.broker.question.QuestionAction;
import ark.broker.question.QuestionEvent;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionOrder;
import ark.broker.question.QuestionPage;
import ark.broker.question.QuestionStatus;
import ark.broker.wire.QuestionJson;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QuestionViewTest {
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  private final QuestionView view = new QuestionView();

  private static Question question(String id, String recipient, Instant createdAt, Instant expiresAt) {
    return new NewQuestion("ark://agents/a", recipient, null, "content " + id, null, null, null, true, null, null, false, null, expiresAt,
        null, null, null, null, null).toQuestion(id, createdAt);
  }

  private Question create(String id, long position) {
    return view.apply(QuestionEvent.created(question(id, "ark://users/john", T0.plusSeconds(position), null)),
        position).current();
  }

  @Test
  void appliesACreateAtItsPosition() {
    QuestionView.Result result = view.apply(QuestionEvent.created(question("q-1", "ark://users/john", T0, null)), 1);

    assertThat(result.effect()).isEqualTo(QuestionView.Effect.APPLIED);
    assertThat(result.current().resourceVersion()).isEqualTo(1);
    assertThat(view.get("q-1")).isEqualTo(result.current());
    assertThat(view.position()).isEqualTo(1);
    assertThat(view.count(QuestionStatus.PENDING)).isEqualTo(1);
  }

  @Test
  void aRemovalBasedOnAnOlderStateIsSupersededAndAnyWriteAfterARemovalIsToo() {
    Question first = create("q-1", 1);
    Question answered = view.apply(QuestionEvent.changed(EventType.ANSWERED, first, first.answer("yes", null, T0)), 2)
        .current();

    assertThat(view.apply(QuestionEvent.removed(first, T0), 3).effect()).as("decided on the pending question")
        .isEqualTo(QuestionView.Effect.SUPERSEDED);
    assertThat(view.settledBefore(T0.plusSeconds(3600), 10)).containsExactly(answered);

    QuestionView.Result removed = view.apply(QuestionEvent.removed(answered, T0), 4);
    assertThat(removed.effect()).isEqualTo(QuestionView.Effect.APPLIED);
    assertThat(view.get("q-1")).isNull();
    assertThat(view.removed("q-1")).isEqualTo(removed.current());
    assertThat(view.count(QuestionStatus.ANSWERED)).isZero();
    assertThat(view.list(QuestionFilter.ALL, QuestionOrder.NEWEST_FIRST, 10, null).items()).isEmpty();
    assertThat(view.settledBefore(T0.plusSeconds(3600), 10)).isEmpty();

    assertThat(view.apply(QuestionEvent.changed(EventType.CANCELLED, answered, answered), 5).effect())
        .as("a replica that had not seen the removal").isEqualTo(QuestionView.Effect.SUPERSEDED);
    assertThat(view.get("q-1")).isNull();
  }

  @Test
  void aForgottenQuestionLeavesTheAuditTrailAndARestatedRemovalRebuildsItOnReplay() {
    Question first = create("q-1", 1);
    Question answered = view.apply(QuestionEvent.changed(EventType.ANSWERED, first, first.answer("yes", null, T0)), 2)
        .current();
    Question removed = view.apply(QuestionEvent.removed(answered, T0), 3).current();

    QuestionView replayed = new QuestionView();
    assertThat(replayed.apply(QuestionEvent.restatingRemoved(removed), 7).effect()).isEqualTo(QuestionView.Effect.APPLIED);
    assertThat(replayed.removed("q-1").resourceVersion()).as("as the snapshot had it").isEqualTo(removed.resourceVersion());
    assertThat(replayed.get("q-1")).isNull();

    assertThat(view.removedBefore(answered.updatedAt().plusSeconds(1), 10)).containsExactly(removed);
    assertThat(view.apply(QuestionEvent.forgotten("q-1", T0), 4).effect()).isEqualTo(QuestionView.Effect.DROPPED);
    assertThat(view.removed("q-1")).isNull();
    assertThat(view.allRemoved()).isEmpty();
  }

  @Test
  void countsEachSendersPendingQuestionsThroughAnswersAndRestatements() {
    Question first = create("q-1", 1);
    create("q-2", 2);
    assertThat(view.pendingFrom("ark://agents/a")).isEqualTo(2);

    view.apply(QuestionEvent.changed(EventType.ANSWERED, first, first.answer("yes", null, T0)), 3);
    view.apply(QuestionEvent.restating(view.get("q-1")), 4);

    assertThat(view.pendingFrom("ark://agents/a")).isEqualTo(1);
    assertThat(view.pendingFrom("ark://agents/other")).isZero();
  }

  @Test
  void countsEachServicesPendingQuestionsForTheAgentsItActsFor() {
    Attribution executor = new Attribution("ark://users/executor", "service", "token", "ark://agents/a", null, null);
    Attribution itself = new Attribution("ark://agents/a", "agent", "token", null, null, null);
    Question forAgent = question("q-1", "ark://users/john", T0, null);
    view.apply(QuestionEvent.created(forAgent.recording(new QuestionAction(EventType.CREATED, T0, executor, null))), 1);
    Question asked = question("q-2", "ark://users/john", T0, null);
    view.apply(QuestionEvent.created(asked.recording(new QuestionAction(EventType.CREATED, T0, itself, null))), 2);
    assertThat(view.pendingAskedOnBehalfBy("ark://users/executor")).isEqualTo(1);
    assertThat(view.pendingAskedOnBehalfBy("ark://agents/a")).as("asked as itself").isZero();

    Question first = view.get("q-1");
    view.apply(QuestionEvent.changed(EventType.ANSWERED, first, first.answer("yes", null, T0)), 3);

    assertThat(view.pendingAskedOnBehalfBy("ark://users/executor")).isZero();
    assertThat(view.pendingFrom("ark://agents/a")).isEqualTo(1);
  }

  @Test
  void aSecondCreateOfOneIdFindsTheFirst() {
    Question first = create("q-1", 1);

    QuestionView.Result again = view.apply(QuestionEvent.created(question("q-1", "ark://users/other", T0, null)), 2);

    assertThat(again.effect()).isEqualTo(QuestionView.Effect.ALREADY_EXISTS);
    assertThat(again.current()).isEqualTo(first);
    assertThat(view.size()).isEqualTo(1);
  }

  @Test
  void ofTwoChangesDecidedOnTheSameStateOnlyTheFirstInLogOrderApplies() {
    Question created = create("q-1", 1);
    QuestionEvent yes = QuestionEvent.changed(EventType.ANSWERED, created, created.answer("yes", null, T0));
    QuestionEvent no = QuestionEvent.changed(EventType.ANSWERED, created, created.answer("no", null, T0));

    QuestionView.Result first = view.apply(yes, 2);
    QuestionView.Result second = view.apply(no, 3);

    assertThat(first.effect()).isEqualTo(QuestionView.Effect.APPLIED);
    assertThat(second.effect()).isEqualTo(QuestionView.Effect.SUPERSEDED);
    assertThat(view.get("q-1").outcome().response()).isEqualTo("yes");
    assertThat(view.get("q-1").resourceVersion()).isEqualTo(2);
    assertThat(view.count(QuestionStatus.ANSWERED)).isEqualTo(1);
    assertThat(view.count(QuestionStatus.PENDING)).isZero();
  }

  @Test
  void aRestatedQuestionIsTakenAsItIs() {
    Question answered = question("q-1", "ark://users/john", T0, null).answer("yes", null, T0).withResourceVersion(7);

    view.apply(QuestionEvent.restating(answered), 7);

    assertThat(view.get("q-1").outcome().status()).isEqualTo(QuestionStatus.ANSWERED);
    assertThat(view.get("q-1").resourceVersion()).isEqualTo(7);
  }

  @Test
  void aRecordThatLostARaceLeavesItsQuestionMisstatedUntilARestatementConfirmsIt() {
    Question created = create("q-1", 1);
    view.apply(QuestionEvent.changed(EventType.ANSWERED, created, created.answer("yes", null, T0)), 2);
    view.apply(QuestionEvent.changed(EventType.ANSWERED, created, created.answer("no", null, T0)), 3);
    assertThat(view.misstated()).containsExactly("q-1");

    QuestionView.Result restated = view.apply(QuestionEvent.restating(view.get("q-1")), 4);

    assertThat(restated.effect()).isEqualTo(QuestionView.Effect.CONFIRMED);
    assertThat(view.misstated()).isEmpty();
    assertThat(view.get("q-1").outcome().response()).isEqualTo("yes");
    assertThat(view.get("q-1").resourceVersion()).as("a restatement changes nothing").isEqualTo(2);
    assertThat(view.position()).isEqualTo(4);
  }

  @Test
  void aReplicaThatReplaysOnlyTheRestatementOfACompactedLogAgreesWithOneThatSawTheRace() {
    Question created = create("q-1", 1);
    view.apply(QuestionEvent.changed(EventType.ANSWERED, created, created.answer("yes", null, T0)), 2);
    view.apply(QuestionEvent.changed(EventType.ANSWERED, created, created.answer("no", null, T0)), 3);
    QuestionEvent restatement = QuestionEvent.restating(view.get("q-1"));
    view.apply(restatement, 4);
    QuestionView late = new QuestionView();

    late.apply(restatement, 4);

    assertThat(late.get("q-1")).isEqualTo(view.get("q-1"));
    Question answered = view.get("q-1");
    QuestionEvent delivered = QuestionEvent.changed(EventType.DELIVERED, answered,
        answered.withDelivery(new Delivery("slack", "C1/1", null, T0), T0));
    assertThat(view.apply(delivered, 5).effect()).isEqualTo(QuestionView.Effect.APPLIED);
    assertThat(late.apply(delivered, 5).effect()).as("both expect the same version").isEqualTo(QuestionView.Effect.APPLIED);
    assertThat(late.get("q-1")).isEqualTo(view.get("q-1"));
  }

  @Test
  void aRestatementOvertakenByAnotherChangeIsSupersededAndTheQuestionStaysMisstated() {
    Question created = create("q-1", 1);
    QuestionEvent stale = QuestionEvent.restating(created);
    view.apply(QuestionEvent.changed(EventType.CANCELLED, created, created.cancel(T0)), 2);

    assertThat(view.apply(stale, 3).effect()).isEqualTo(QuestionView.Effect.SUPERSEDED);
    assertThat(view.misstated()).containsExactly("q-1");
    assertThat(view.get("q-1").outcome().status()).isEqualTo(QuestionStatus.CANCELLED);
  }

  @Test
  void aSecondCreateOfOneIdLeavesItMisstated() {
    create("q-1", 1);

    view.apply(QuestionEvent.created(question("q-1", "ark://users/other", T0, null)), 2);

    assertThat(view.misstated()).containsExactly("q-1");
  }

  @Test
  void listsInCreationOrderPageByPage() {
    for (int i = 1; i <= 5; i++) {
      create("q-" + i, i);
    }

    QuestionPage first = view.list(QuestionFilter.ALL, 2, null);
    QuestionPage second = view.list(QuestionFilter.ALL, 2, first.continueToken());
    QuestionPage last = view.list(QuestionFilter.ALL, 2, second.continueToken());

    assertThat(first.items()).extracting(Question::id).containsExactly("q-1", "q-2");
    assertThat(second.items()).extracting(Question::id).containsExactly("q-3", "q-4");
    assertThat(last.items()).extracting(Question::id).containsExactly("q-5");
    assertThat(last.continueToken()).isNull();
    assertThat(first.resourceVersion()).isEqualTo("5");
  }

  @Test
  void aFullLastPageHasNoContinueToken() {
    create("q-1", 1);
    create("q-2", 2);

    assertThat(view.list(QuestionFilter.ALL, 2, null).continueToken()).isNull();
  }

  @Test
  void filtersByStatusSenderAndRecipient() {
    Question one = create("q-1", 1);
    create("q-2", 2);
    view.apply(QuestionEvent.changed(EventType.ANSWERED, one, one.answer("yes", null, T0)), 3);
    view.apply(QuestionEvent.created(question("q-3", "ark://users/mary", T0.plusSeconds(9), null)), 4);

    assertThat(view.list(new QuestionFilter(QuestionStatus.PENDING, null, null), 10, null).items())
        .extracting(Question::id).containsExactly("q-2", "q-3");
    assertThat(view.list(new QuestionFilter(null, null, "ark://users/mary"), 10, null).items())
        .extracting(Question::id).containsExactly("q-3");
    assertThat(view.list(new QuestionFilter(null, "ark://agents/other", null), 10, null).items()).isEmpty();
  }

  @Test
  void indexedListsPageOverJustTheirQuestionsAndFollowStatusChanges() {
    for (int i = 1; i <= 6; i++) {
      create("q-" + i, i);
    }
    Question second = view.get("q-2");
    Question fourth = view.get("q-4");
    view.apply(QuestionEvent.changed(EventType.ANSWERED, second, second.answer("a", null, T0)), 7);
    view.apply(QuestionEvent.changed(EventType.CANCELLED, fourth, fourth.cancel(T0)), 8);
    QuestionFilter pendingForJohn = new QuestionFilter(QuestionStatus.PENDING, "ark://agents/a", "ark://users/john");

    QuestionPage first = view.list(pendingForJohn, 2, null);
    QuestionPage rest = view.list(pendingForJohn, 2, first.continueToken());

    assertThat(first.items()).extracting(Question::id).containsExactly("q-1", "q-3");
    assertThat(rest.items()).extracting(Question::id).containsExactly("q-5", "q-6");
    assertThat(rest.continueToken()).isNull();
    assertThat(view.list(new QuestionFilter(QuestionStatus.ANSWERED, null, null), 10, null).items())
        .extracting(Question::id).containsExactly("q-2");
    assertThat(view.list(new QuestionFilter(null, "ark://agents/nobody", null), 10, null).items()).isEmpty();
  }

  @Test
  void searchesContentAndContextIgnoringCase() {
    view.apply(QuestionEvent.created(new NewQuestion("ark://agents/a", "ark://users/john", null, "Merge PR 42?",
        "**Tests** are green", null, Priority.HIGH, true, null, null, false, null, null, null, null, null, null, null).toQuestion("q-1", T0)), 1);
    view.apply(QuestionEvent.created(new NewQuestion("ark://agents/a", "ark://users/john", null, "Rerun the tests?",
        null, null, Priority.LOW, true, null, null, false, null, null, null, null, null, null, null).toQuestion("q-2", T0.plusSeconds(1))), 2);
    create("q-3", 3);

    assertThat(view.list(new QuestionFilter(null, null, null, null, "TESTS"), 10, null).items())
        .extracting(Question::id).containsExactly("q-1", "q-2");
    assertThat(view.list(new QuestionFilter(null, null, null, null, "pr 42"), 10, null).items())
        .extracting(Question::id).containsExactly("q-1");
    assertThat(view.list(new QuestionFilter(null, null, null, Priority.LOW, "tests"), 10, null).items())
        .extracting(Question::id).containsExactly("q-2");
    assertThat(view.list(new QuestionFilter(null, null, null, Priority.MEDIUM, null), 10, null).items())
        .extracting(Question::id).containsExactly("q-3");
    assertThat(view.list(new QuestionFilter(null, null, null, null, "nowhere"), 10, null).items()).isEmpty();
  }

  @Test
  void aSearchTextHasABoundedLength() {
    assertThatThrownBy(() -> new QuestionFilter(null, null, null, null, "x".repeat(257)))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining("longer than 256");
  }

  @Test
  void listsNewestFirstPageByPageOverAnIndex() {
    for (int i = 1; i <= 5; i++) {
      create("q-" + i, i);
    }
    Question third = view.get("q-3");
    view.apply(QuestionEvent.changed(EventType.ANSWERED, third, third.answer("a", null, T0)), 6);
    QuestionFilter pending = new QuestionFilter(QuestionStatus.PENDING, null, null);

    QuestionPage first = view.list(pending, QuestionOrder.NEWEST_FIRST, 2, null);
    QuestionPage rest = view.list(pending, QuestionOrder.NEWEST_FIRST, 2, first.continueToken());

    assertThat(first.items()).extracting(Question::id).containsExactly("q-5", "q-4");
    assertThat(rest.items()).extracting(Question::id).containsExactly("q-2", "q-1");
    assertThat(rest.continueToken()).isNull();
    assertThat(view.list(QuestionFilter.ALL, QuestionOrder.NEWEST_FIRST, 10, null).items())
        .extracting(Question::id).containsExactly("q-5", "q-4", "q-3", "q-2", "q-1");
  }

  @Test
  void aForgedContinueTokenIsRefused() {
    assertThatThrownBy(() -> view.list(QuestionFilter.ALL, 2, "not-a-token"))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining("continue");
  }

  @Test
  void knowsWhichPendingQuestionsAreDueToExpire() {
    view.apply(QuestionEvent.created(question("q-late", "ark://users/john", T0, T0.plusSeconds(20))), 1);
    view.apply(QuestionEvent.created(question("q-soon", "ark://users/john", T0, T0.plusSeconds(10))), 2);
    Question never = view.apply(QuestionEvent.created(question("q-never", "ark://users/john", T0, null)), 3).current();

    assertThat(view.dueForFollowUp(T0.plusSeconds(5), 10)).isEmpty();
    assertThat(view.dueForFollowUp(T0.plusSeconds(15), 10)).extracting(Question::id).containsExactly("q-soon");
    assertThat(view.dueForFollowUp(T0.plusSeconds(25), 10)).extracting(Question::id).containsExactly("q-soon", "q-late");

    Question soon = view.get("q-soon");
    view.apply(QuestionEvent.changed(EventType.ANSWERED, soon, soon.answer("x", null, T0)), 4);
    assertThat(view.dueForFollowUp(T0.plusSeconds(25), 10)).extracting(Question::id).containsExactly("q-late");
    assertThat(never.followUps().expiresAt()).isNull();
  }

  @Test
  void eventsSurviveTheirJsonForm() throws Exception {
    Question created = question("q-1", "ark://users/john", T0, T0.plusSeconds(5));
    QuestionEvent event = QuestionEvent.changed(EventType.ANSWERED, created.withResourceVersion(3),
        created.answer("yes", "ark://users/john", T0));

    byte[] json = QuestionJson.MAPPER.writeValueAsBytes(event);
    QuestionEvent read = QuestionJson.MAPPER.readValue(json, QuestionEvent.class);

    assertThat(read).isEqualTo(event);
    assertThat(new String(json, StandardCharsets.UTF_8)).doesNotContain("\n").contains("\"type\":\"question_answered\"")
        .doesNotContain("restated").doesNotContain("resourceVersion");
    assertThat(List.of(read.question().outcome().status())).containsExactly(QuestionStatus.ANSWERED);
  }
}
