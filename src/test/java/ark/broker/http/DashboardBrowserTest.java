package ark.broker.http;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.Chromium;
import ark.broker.testing.NodeDriven;
import ark.broker.testing.NodeScript;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard at {@code /}, in a real Chromium: people see questions live and answer them, read their context,
 * search the history and see what happened to each question. One browser session (dashboard.mjs) does it all;
 * each test here checks one part of what it saw.
 */
@NodeDriven
class DashboardBrowserTest {
  static TestBroker broker;
  static JsonObject seen;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(started -> broker = started);

  @BeforeAll
  static void drive() throws Exception {
    Path chromium = Chromium.assumeInstalled();
    NodeScript.Run run = NodeScript.run(240, "dashboard.mjs", broker.base.toString(), chromium.toString());
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    seen = new JsonObject(run.lastLine());
  }

  @Test
  void peopleSeeQuestionsLiveAndAnswerThem() {
    assertThat(seen.getString("title")).contains("Ark Broker");
    assertThat(seen.getString("identity")).as("an open broker asks no one to sign in").isEqualTo("open broker");
    assertThat(seen.getString("emptyText")).contains("Nothing is waiting");
    assertThat(seen.getString("cardText")).contains("Ship release 2.0?").contains("All checks are green")
        .contains("ark://agents/dashboard-test").contains("high");
    assertThat(seen.getInteger("pendingAfterClick")).isZero();
    assertThat(seen.getString("settledText")).contains("Answered by ark://users/person-").contains(": ship");
    assertThat(seen.getJsonObject("choiceStored").getString("response")).isEqualTo("ship");
    assertThat(seen.getJsonObject("choiceStored").getString("answeredBy")).startsWith("ark://users/person-");
    assertThat(seen.getJsonObject("freeStored").getString("response")).isEqualTo("release/2.0");
    assertThat(seen.getString("elsewhereText")).contains("yes, in Slack");
    assertThat(seen.getString("hostileText")).isEqualTo("<img src=x onerror=\"window.pwned=1\">");
    assertThat(seen.getJsonArray("pendingAfterReload")).contains(seen.getString("hostileId"))
        .doesNotContainAnyElementsOf(seen.getJsonArray("settledIds"));
  }

  @Test
  void theTabTitleCountsWhatWaitsAndTimesSayHowLongAgo() {
    assertThat(seen.getString("titleWithNone")).isEqualTo("Ark Broker · questions");
    assertThat(seen.getString("titleWithOne")).isEqualTo("(1) Ark Broker · questions");
    JsonObject age = seen.getJsonObject("age");
    assertThat(age.getString("text")).isEqualTo("just now");
    assertThat(age.getString("title")).as("the date and time on hover").isEqualTo(age.getString("expected"));
    assertThat(seen.getJsonObject("approvalForm").getJsonArray("ages")).as("asked, expires")
        .containsExactly("3 h ago", "in 2 days");
  }

  @Test
  void desktopNotificationsAreOptInAndSayWhoAsksWhat() {
    assertThat(seen.getInteger("notifiedBeforeOptIn")).isZero();
    assertThat(seen.getJsonArray("notifications")).containsExactly(new JsonObject()
        .put("title", "Question from ark://agents/notifier").put("body", "Asked while you look elsewhere?")
        .put("tag", seen.getString("announcedId")));
  }

  @Test
  void cancellingAsksForAReasonAndIsNotAnAnswerOption() {
    assertThat(seen.getString("focusAfterCancelOpen")).as("the reason field takes the focus").startsWith("cancel-reason-");
    assertThat(seen.getString("cancelReasonError")).contains("Say why");
    assertThat(seen.getString("stillPendingWithoutReason")).isEqualTo("pending");
    assertThat(seen.getJsonObject("cancelledStored").getString("status")).isEqualTo("cancelled");
    JsonObject looks = seen.getJsonObject("cancelLooks");
    assertThat(looks.getString("option")).as("an option named cancel looks like an answer")
        .isNotEqualTo(looks.getString("cancel"));
    assertThat(seen.getJsonObject("namedStored").getString("status")).isEqualTo("answered");
    assertThat(seen.getJsonObject("namedStored").getString("response")).isEqualTo("cancel");
  }

  @Test
  void contextIsRenderedAsMarkdownOrJsonAndNeverRuns() {
    JsonObject markdown = seen.getJsonObject("markdown");
    assertThat(markdown.getString("heading")).isEqualTo("Diff summary");
    assertThat(markdown.getString("strong")).isEqualTo("tests");
    assertThat(markdown.getString("em")).isEqualTo("lint");
    assertThat(markdown.getJsonArray("items")).containsExactly("first change", "second change");
    assertThat(markdown.getString("code")).isEqualTo("mvn verify");
    assertThat(markdown.getJsonArray("links")).as("only the http(s) link is a link").containsExactly(
        new JsonObject().put("href", "https://example.com/docs").put("rel", "noopener noreferrer").put("text", "the docs"));
    assertThat(markdown.getString("text")).contains("[a trap](javascript:window.pwned=2)")
        .contains("<script>window.pwned=3</script>");
    assertThat(markdown.getInteger("elements")).as("no script or image from the context").isZero();
    assertThat(seen.getValue("pwned")).as("nothing from a question ran").isNull();

    JsonObject json = seen.getJsonObject("json");
    assertThat(json.getInteger("collapsible")).isGreaterThanOrEqualTo(3);
    assertThat(json.getString("summary")).isEqualTo("JSON {5 keys}");
    assertThat(json.getJsonArray("links")).containsExactly("https://example.com/pr/42");
    assertThat(json.getString("text")).contains("\"pr\": 42").contains("\"unit\": \"passed\"").contains("\"e2e\": null");
  }

  @Test
  void formsFromTheResponseSchemaValidateAndSendTheTypedAnswer() {
    JsonObject form = seen.getJsonObject("form");
    assertThat(form.getJsonArray("labels"))
        .containsExactly("Environment (required)", "Replicas (required)", "Notify the team");
    assertThat(form.getJsonArray("inputs"))
        .containsExactly("environment:select-one", "replicas:number", "notify:checkbox");
    assertThat(form.getJsonArray("requiredErrors")).containsExactly("Required.", "Required.");
    assertThat(form.getString("rangeError")).isEqualTo("Must be at most 10.");
    assertThat(form.getString("focusedAfterError")).isEqualTo("replicas");
    assertThat(form.getString("serverError")).as("the broker's refusal, at its field")
        .isEqualTo("replicas: must be at most 1 in production");
    JsonArray sent = form.getJsonArray("sent");
    assertThat(sent).hasSize(2);
    assertThat(sent.getJsonObject(1).getJsonObject("answer"))
        .isEqualTo(new JsonObject().put("environment", "production").put("replicas", 1).put("notify", true));
    assertThat(form.getString("outcome")).contains("environment: production, replicas: 1, notify: true");
    assertThat(seen.getBoolean("typedServer")).as("the broker keeps the question's responseSchema").isTrue();
    assertThat(seen.getJsonObject("typedStored").getJsonObject("answer")).as("the answer the real broker stored")
        .isEqualTo(new JsonObject().put("environment", "production").put("replicas", 2).put("notify", true));
  }

  @Test
  void approvalsTakeADecisionWithAReason() {
    JsonObject approval = seen.getJsonObject("approvalForm");
    assertThat(approval.getString("reasonError")).isEqualTo("Give a reason.");
    assertThat(approval.getJsonArray("sent")).hasSize(1);
    assertThat(approval.getJsonArray("sent").getJsonObject(0).getJsonObject("decision"))
        .isEqualTo(new JsonObject().put("action", "rejected").put("reason", "touches production data"));
    assertThat(approval.getString("outcome")).isEqualTo("Rejected by ark://users/stub: touches production data");
    assertThat(seen.getBoolean("approvalServer")).as("the broker asks approval questions").isTrue();
    JsonObject decision = seen.getJsonObject("approvalStored").getJsonObject("decision");
    assertThat(decision.getString("action")).as("the decision the real broker stored").isEqualTo("rejected");
    assertThat(decision.getString("reason")).isEqualTo("touches production data");
  }

  @Test
  void approvalsShowTheCallsArgumentsForEditingAndAnOpenBrokerAsksWhoDecides() {
    JsonObject editing = seen.getJsonObject("editing");
    assertThat(editing.getJsonObject("shown")).isEqualTo(new JsonObject().put("table", "users_old").put("cascade", true));
    assertThat(editing.getString("approverError")).contains("Answering as");
    assertThat(editing.getString("focusedAfterApproverError")).isEqualTo("me");
    assertThat(editing.getString("argumentsError")).startsWith("Not JSON: ");
    assertThat(editing.getString("statusWithBadArguments")).isEqualTo("pending");
    JsonObject decision = editing.getJsonObject("stored").getJsonObject("decision");
    assertThat(decision.getString("action")).isEqualTo("approved");
    assertThat(decision.getJsonObject("arguments")).isEqualTo(new JsonObject().put("table", "users_old").put("cascade", false));
    assertThat(decision.getString("decidedBy")).startsWith("ark://users/person-");
    assertThat(editing.getString("outcome")).startsWith("Approved by ark://users/person-")
        .endsWith("with the arguments edited to {\"table\":\"users_old\",\"cascade\":false}");
  }

  @Test
  void theHistorySearchesEverythingTheBrokerKeeps() {
    assertThat(seen.getString("historyText")).contains("publish the release notes").contains("Answered by ark://users/earlier: published");
    assertThat(seen.getInteger("firstPage")).isEqualTo(20);
    assertThat(seen.getBoolean("loadMoreShown")).isTrue();
    List<Object> contents = seen.getJsonArray("afterLoadMore").stream().toList();
    assertThat(contents).hasSize(21);
    assertThat(contents.get(0).toString()).as("newest first").endsWith("number 20");
    assertThat(contents.get(20).toString()).endsWith("number 0");
    assertThat(seen.getBoolean("loadMoreAfter")).isFalse();
    assertThat(seen.getString("historyPendingOutcome")).as("a question still waiting, never 'Cancelled'")
        .isEqualTo("Waiting for an answer");
    assertThat(seen.getJsonArray("cancelledFilter")).contains(seen.getJsonObject("cancelledStored").getString("id"))
        .doesNotContain(seen.getJsonObject("choiceStored").getString("id"));
  }

  @Test
  void aQuestionsDetailPageShowsWhoDidWhatAndWhy() {
    assertThat(seen.getString("detailHash")).isEqualTo("#/questions/" + seen.getJsonObject("cancelledStored").getString("id"));
    List<Object> cancelled = seen.getJsonArray("cancelledEvents").stream().toList();
    assertThat(cancelled).hasSize(2);
    assertThat(cancelled.get(0).toString()).startsWith("Asked").contains("by anonymous");
    assertThat(cancelled.get(1).toString()).startsWith("Cancelled").contains("signed in by anonymous")
        .contains("Reason: the agent found the answer itself");
    List<Object> archived = seen.getJsonArray("archivedEvents").stream().toList();
    assertThat(archived.get(1).toString()).startsWith("Answered");
  }

  @Test
  void everyFieldHasALabelAndNothingScrollsSidewaysAtPhoneWidth() {
    assertThat(seen.getJsonArray("unlabelled")).isEmpty();
    JsonObject narrow = seen.getJsonObject("narrow");
    for (String view : List.of("waiting", "history", "detail")) {
      assertThat(narrow.getInteger(view)).as(view + " at 390 px").isLessThanOrEqualTo(390);
    }
  }

  @Test
  void theIconsAreServedAndTheConsoleStaysClean() {
    assertThat(seen.getJsonObject("icons").getString("/favicon.ico")).startsWith("200 image/");
    assertThat(seen.getJsonObject("icons").getString("/favicon.svg")).isEqualTo("200 image/svg+xml");
    assertThat(seen.getJsonArray("consoleErrors")).as("console errors besides the stubbed refusal")
        .allSatisfy(error -> assertThat(error.toString()).contains("status of 400"))
        .hasSizeLessThanOrEqualTo(1);
  }
}
