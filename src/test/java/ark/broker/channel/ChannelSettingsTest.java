package ark.broker.channel;

import ark.broker.channel.email.EmailChannel;
import ark.broker.channel.github.GitHubChannel;
import ark.broker.channel.slack.SlackChannel;
import ark.broker.question.AnswerForm;
import ark.broker.question.Asked;
import ark.broker.question.FollowUps;
import ark.broker.question.Origin;
import ark.broker.question.Outcome;
import ark.broker.question.Priority;
import ark.broker.question.Question;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The channels section: what is on, where names lead, who may answer, and refusals of bad settings. */
class ChannelSettingsTest {
  /** The section as the broker reads it: {@code overrides} over the defaults in conf/broker.json. */
  private static JsonObject withDefaults(JsonObject overrides) {
    try {
      return new JsonObject(Files.readString(Path.of("conf/broker.json"))).getJsonObject("channels").mergeIn(overrides, true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonObject channels() {
    return withDefaults(new JsonObject()
        .put("routes", new JsonArray().add(new JsonObject().put("priority", "high").put("channels", new JsonArray().add("slack:alerts"))))
        .put("directory", new JsonObject()
            .put("users", new JsonObject().put("ann", new JsonObject().put("slack", "U1").put("github", "Ann-H")))
            .put("teams", new JsonObject().put("sre", new JsonArray().add("ann"))))
        .put("slack", new JsonObject().put("enabled", true).put("botToken", "xoxb-1").put("signingSecret", "s1")
            .put("conversations", new JsonObject().put("ops", "C1").put("alerts", "C2")).put("defaultConversation", "ops"))
        .put("github", new JsonObject().put("enabled", true).put("token", "t").put("webhookSecret", "w")
            .put("repositories", new JsonArray().add("Acme/App")))
        .put("webhook", new JsonObject().put("enabled", false)));
  }

  private static Destinations destinations(ChannelSettings settings) {
    Clock clock = Clock.systemUTC();
    return new Destinations(List.of(
        new SlackChannel(null, settings.slack(), settings.directory(), clock),
        new GitHubChannel(null, settings.github(), settings.directory(), clock)), settings.routes());
  }

  private static Question question(List<String> channels, Priority priority) {
    return question("ark://users/ann", channels, priority);
  }

  private static Question question(String recipient, List<String> channels, Priority priority) {
    return new Question("q-1", new Asked(null, recipient, channels, "Go?", null, null, priority, true),
        new AnswerForm(null, null, false, null), FollowUps.planned(null, null), Outcome.PENDING,
        new Origin(null, null, null), Instant.EPOCH, Instant.EPOCH, List.of(), List.of(), 1);
  }

  @Test
  void namesLeadToConfiguredPlacesOnlyAndRulesAddTheirs() {
    ChannelSettings settings = ChannelSettings.from(channels());
    Destinations destinations = destinations(settings);

    List<Destination> places = destinations.of(question(
        List.of("slack", "slack:#ops", "slack:C999", "github:acme/app#7", "github:other/repo#1", "webhook", "email"), Priority.HIGH));

    assertThat(places).extracting(Destination::name).containsExactly("slack", "github:acme/app#7", "slack:alerts");
    assertThat(places).extracting(Destination::label).containsExactly("Slack #ops", "GitHub acme/app#7", "Slack #alerts");
    assertThat(destinations.unserved(question(List.of("slack:C999", "github:other/repo#1", "webhook"), Priority.LOW)))
        .containsExactly("slack:C999", "github:other/repo#1", "webhook");
    assertThat(settings.webhook()).isNull();
  }

  private static JsonObject withPeople(JsonObject channels) {
    channels.getJsonObject("directory").getJsonObject("users")
        .put("bob", new JsonObject().put("slack", "U2"))
        .put("carl", new JsonObject().put("email", "carl@example.com"));
    channels.getJsonObject("directory").getJsonObject("users").getJsonObject("ann").put("email", "ann@example.com");
    channels.getJsonObject("directory").getJsonObject("teams").put("sre", new JsonArray().add("ann").add("bob").add("carl"));
    channels.getJsonObject("email").mergeIn(new JsonObject().put("enabled", true).put("host", "smtp.example.com").put("from", "ark@example.com")
        .put("publicBaseUrl", "https://ark.example.com").put("linkSecret", "0123456789abcdef0123456789abcdef")
        .put("username", "ark").put("password", "smtp-pass"));
    return channels;
  }

  @Test
  void slackDmAndEmailReachEachPersonTheRecipientStandsForThatTheDirectoryKnowsThere() {
    ChannelSettings settings = ChannelSettings.from(withPeople(channels()));
    Clock clock = Clock.systemUTC();
    Destinations destinations = new Destinations(List.of(
        new SlackChannel(null, settings.slack(), settings.directory(), clock),
        new EmailChannel(null, settings.email(), settings.directory(), 1000, clock)), List.of());

    List<Destination> team = destinations.of(question("ark://teams/sre", List.of("slack:dm", "email"), Priority.LOW));
    List<Destination> person = destinations.of(question("ark://users/bob", List.of("slack:dm", "email"), Priority.LOW));

    assertThat(team).extracting(Destination::name).containsExactly("slack:dm:ann", "slack:dm:bob", "email:ann", "email:carl");
    assertThat(team).extracting(Destination::label).containsExactly("Slack DM to ann", "Slack DM to bob", "email to ann", "email to carl");
    assertThat(person).extracting(Destination::name).containsExactly("slack:dm:bob");
    assertThat(destinations.unserved(question("ark://agents/reviewer", List.of("slack:dm", "email"), Priority.LOW)))
        .containsExactly("slack:dm", "email");
    assertThat(settings.email().toString()).doesNotContain("smtp-pass").doesNotContain("0123456789abcdef");
  }

  @Test
  void plainSlackSendsDirectMessagesWhenNoDefaultConversationIsSet() {
    JsonObject channels = withPeople(channels());
    channels.getJsonObject("slack").put("defaultConversation", "");
    ChannelSettings settings = ChannelSettings.from(channels);
    Destinations destinations = new Destinations(List.of(
        new SlackChannel(null, settings.slack(), settings.directory(), Clock.systemUTC())), List.of());

    assertThat(destinations.of(question("ark://users/ann", List.of("slack", "slack:ops"), Priority.LOW)))
        .extracting(Destination::name).containsExactly("slack:dm:ann", "slack:ops");
  }

  @Test
  void emailAndSlackDmSettingsThatCannotWorkAreRefused() {
    JsonObject shortKey = withPeople(channels());
    shortKey.getJsonObject("email").put("linkSecret", "short");
    JsonObject badTls = withPeople(channels());
    badTls.getJsonObject("email").put("tls", "ssl");
    JsonObject noPassword = withPeople(channels());
    noPassword.getJsonObject("email").put("password", "");
    JsonObject noBaseUrl = withPeople(channels());
    noBaseUrl.getJsonObject("email").put("publicBaseUrl", "");
    JsonObject badAddress = withPeople(channels());
    badAddress.getJsonObject("directory").getJsonObject("users").getJsonObject("carl").put("email", "carl@example.com, eve@evil.example");
    JsonObject dmConversation = channels();
    dmConversation.getJsonObject("slack").getJsonObject("conversations").put("dm", "C9");

    assertThatThrownBy(() -> ChannelSettings.from(shortKey)).hasMessageContaining("channels.email.linkSecret must be at least 32 characters");
    assertThatThrownBy(() -> ChannelSettings.from(badTls)).hasMessageContaining("channels.email.tls must be starttls, tls or none, not 'ssl'");
    assertThatThrownBy(() -> ChannelSettings.from(noPassword)).hasMessageContaining("channels.email.password must be set");
    assertThatThrownBy(() -> ChannelSettings.from(noBaseUrl)).hasMessageContaining("channels.email.publicBaseUrl must be an absolute http or https URL");
    assertThatThrownBy(() -> ChannelSettings.from(badAddress)).hasMessageContaining("channels.directory.users.carl.email is not a plain email address");
    assertThatThrownBy(() -> ChannelSettings.from(dmConversation)).hasMessageContaining("may not name a conversation 'dm'");
  }

  @Test
  void theDirectoryNamesPeopleAndTheirTeamsAndRefusesAccountsThatAreNoAccounts() {
    Directory directory = ChannelSettings.from(channels()).directory();

    assertThat(directory.slackUser("U1")).isEqualTo(new ChannelUser("slack:U1", "ark://users/ann", List.of("ark://teams/sre")));
    assertThat(directory.gitHubUser("ann-h")).isEqualTo(new ChannelUser("github:ann-h", "ark://users/ann", List.of("ark://teams/sre")));
    assertThat(directory.slackUser("U2")).isEqualTo(new ChannelUser("slack:U2", "ark://users/slack:U2", List.of()));
    assertThat(directory.gitHubUser("Bob")).isEqualTo(new ChannelUser("github:Bob", "ark://users/github:Bob", List.of()));
    for (String notAnAccount : new String[] {"", "a/b", "-x", "U1 U2"}) {
      assertThatThrownBy(() -> directory.slackUser(notAnAccount)).isInstanceOfSatisfying(InboundProblem.class,
          problem -> assertThat(problem.status).isEqualTo(400));
    }
  }

  @Test
  void onlyRecipientsMayAnswerFollowsAuthenticationUnlessSetEitherWay() {
    RecipientsOnly byDefault = ChannelSettings.from(withDefaults(new JsonObject())).onlyRecipientsMayAnswer();
    RecipientsOnly fromFile = ChannelSettings.from(withDefaults(new JsonObject().put("onlyRecipientsMayAnswer", false)))
        .onlyRecipientsMayAnswer();
    RecipientsOnly fromEnvironment = ChannelSettings.from(withDefaults(new JsonObject().put("onlyRecipientsMayAnswer", "true")))
        .onlyRecipientsMayAnswer();

    assertThat(List.of(byDefault.applies(true), byDefault.applies(false))).containsExactly(true, false);
    assertThat(List.of(fromFile.applies(true), fromFile.applies(false))).containsExactly(false, false);
    assertThat(List.of(fromEnvironment.applies(true), fromEnvironment.applies(false))).containsExactly(true, true);
    assertThatThrownBy(() -> ChannelSettings.from(withDefaults(new JsonObject().put("onlyRecipientsMayAnswer", "yes"))))
        .hasMessageContaining("channels.onlyRecipientsMayAnswer must be auto, true or false, not 'yes'");
  }

  @Test
  void everythingIsOffByDefault() {
    ChannelSettings settings = ChannelSettings.from(withDefaults(new JsonObject()));

    assertThat(settings.slack()).isNull();
    assertThat(settings.github()).isNull();
    assertThat(settings.webhook()).isNull();
    assertThat(settings.email()).isNull();
    assertThat(settings.routes()).isEmpty();
  }

  @Test
  void anEnabledChannelNeedsItsSecretsAndAnHttpUrlAndNeverPrintsThem() {
    JsonObject noSecret = channels();
    noSecret.getJsonObject("slack").put("signingSecret", "");
    JsonObject badUrl = channels();
    badUrl.getJsonObject("github").put("apiBaseUrl", "file:///etc/passwd");
    JsonObject badDefault = channels();
    badDefault.getJsonObject("slack").put("defaultConversation", "random");

    assertThatThrownBy(() -> ChannelSettings.from(noSecret)).hasMessageContaining("channels.slack.signingSecret must be set");
    assertThatThrownBy(() -> ChannelSettings.from(badUrl)).hasMessageContaining("channels.github.apiBaseUrl must be an absolute http or https URL");
    assertThatThrownBy(() -> ChannelSettings.from(badDefault)).hasMessageContaining("not one of channels.slack.conversations");
    assertThat(ChannelSettings.from(channels()).toString()).doesNotContain("xoxb-1").doesNotContain("s1,").contains("[secret]");
  }
}
