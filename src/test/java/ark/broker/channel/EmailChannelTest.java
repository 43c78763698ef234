package ark.broker.channel;

import ark.broker.testing.Eventually;
import ark.broker.testing.Identities;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.mail.Message;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static ark.broker.channel.ChannelTesting.assertAnsweredInChannel;
import static ark.broker.channel.ChannelTesting.delivery;
import static ark.broker.channel.ChannelTesting.hmacHex;
import static ark.broker.channel.ChannelTesting.whoAnswered;
import static ark.broker.testing.Identities.ADMIN;
import static ark.broker.testing.Identities.AGENT;
import static ark.broker.testing.Identities.HUMAN_NAME;
import static ark.broker.testing.Identities.OTHER_HUMAN_NAME;
import static ark.broker.testing.Identities.TEAM;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Questions mailed through a real SMTP server on loopback (GreenMail), read from its mailbox, and answered by
 * following the mail's link as a person's browser would: the page, then its form. Authentication is on, so the
 * answer must be the person's own.
 */
class EmailChannelTest {
  private static final String PUBLIC_BASE = "https://ark.example.com";
  private static final String SMTP_PASSWORD = "smtp-password-for-tests-7Hq";
  private static final String LINK_SECRET = "link-secret-for-tests-0123456789abcdef";
  private static final String ANN_EMAIL = "ann@example.com";
  private static final String BOB_EMAIL = "bob@example.com";
  private static final Pattern LINK = Pattern.compile(Pattern.quote(PUBLIC_BASE + "/channels/email/answer?token=") + "([A-Za-z0-9_.-]+)");
  private static final Pattern FORM_TOKEN = Pattern.compile("name=\"token\" value=\"([^\"]+)\"");

  @TempDir
  static Path dir;
  static GreenMail smtp;
  static TestBroker broker;
  static TestBroker admin;
  static final ListAppender<ILoggingEvent> LOGGED = new ListAppender<>();

  @BeforeAll
  static void start() throws Exception {
    LOGGED.start();
    root().addAppender(LOGGED);
    smtp = new GreenMail(new ServerSetup(3025, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort());
    smtp.setUser("ark@example.com", "broker", SMTP_PASSWORD);
    smtp.start();
    JsonObject channels = new JsonObject()
        .put("retryBaseMillis", 100)
        .put("retryMaxMillis", 1000)
        .put("directory", new JsonObject()
            .put("users", new JsonObject()
                .put("ann", new JsonObject().put("email", ANN_EMAIL))
                .put("bob", new JsonObject().put("email", BOB_EMAIL)))
            .put("teams", new JsonObject().put(TEAM.substring("ark://teams/".length()), new JsonArray().add("ann").add("bob"))))
        .put("email", new JsonObject().put("enabled", true).put("host", "127.0.0.1").put("port", smtp.getSmtp().getPort())
            .put("tls", "none").put("username", "broker").put("password", SMTP_PASSWORD)
            .put("from", "Ark Broker <ark@example.com>").put("publicBaseUrl", PUBLIC_BASE).put("linkSecret", LINK_SECRET));
    broker = TestBroker.start(dir.resolve("data"), Identities.config(dir).put("channels", channels));
    admin = broker.as(ADMIN);
  }

  @AfterAll
  static void stop() throws Exception {
    root().detachAppender(LOGGED);
    broker.close();
    smtp.stop();
  }

  private static Logger root() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }

  /** An agent's question, once its mail to {@code person} is recorded as delivered. */
  private static JsonObject ask(String recipient, List<String> options, String deliveredAs) throws Exception {
    JsonObject body = new JsonObject().put("recipient", recipient).put("channels", new JsonArray().add("email"))
        .put("content", "Rotate the <prod> keys? " + UUID.randomUUID()).put("context", "Last rotated: 90 days ago\n<script>x</script> & more");
    if (options != null) {
      body.put("options", new JsonArray(options));
    }
    Response created = broker.as(AGENT).post("/questions", body.encode());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String id = created.json().getString("id");
    return Eventually.until("question " + id + " mailed", () -> question(id), q -> delivery(q, deliveredAs) != null);
  }

  private static JsonObject question(String id) throws Exception {
    return admin.get("/questions/" + id).json();
  }

  /** The one mail the SMTP server received for the question at that address. */
  private static MimeMessage mailTo(String address, String questionId) throws Exception {
    List<MimeMessage> found = Eventually.until("a mail to " + address, () -> mails(address, questionId), mails -> !mails.isEmpty());
    assertThat(found).hasSize(1);
    return found.get(0);
  }

  private static List<MimeMessage> mails(String address, String questionId) throws Exception {
    List<MimeMessage> found = new ArrayList<>();
    for (MimeMessage mail : smtp.getReceivedMessages()) {
      if (questionId.equals(mail.getHeader("X-Ark-Question", null))
          && Arrays.stream(mail.getRecipients(Message.RecipientType.TO)).anyMatch(to -> to.toString().equals(address))) {
        found.add(mail);
      }
    }
    return found;
  }

  private static String part(MimeMessage mail, int index) throws Exception {
    // SMTP carries lines ending in CRLF.
    return ((String) ((MimeMultipart) mail.getContent()).getBodyPart(index).getContent()).replace("\r\n", "\n");
  }

  /** The tokens of the mail's links, in the order the mail lists them. */
  private static List<String> linkTokens(MimeMessage mail) throws Exception {
    List<String> tokens = new ArrayList<>();
    Matcher links = LINK.matcher(part(mail, 0));
    while (links.find()) {
      tokens.add(links.group(1));
    }
    return tokens;
  }

  /** Follows a link as a browser does (the mail's host is the broker's public name). */
  private static Response open(String token) throws Exception {
    return broker.send(HttpRequest.newBuilder(broker.base.resolve("/channels/email/answer?token=" + token)).GET());
  }

  /** Submits the answer page's form. */
  private static Response submit(String token, String response) throws Exception {
    String form = "token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)
        + (response == null ? "" : "&response=" + URLEncoder.encode(response, StandardCharsets.UTF_8));
    return broker.send(HttpRequest.newBuilder(broker.base.resolve("/channels/email/answer"))
        .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form)));
  }

  private static String formToken(Response page) {
    Matcher token = FORM_TOKEN.matcher(page.body());
    assertThat(token.find()).as(page.body()).isTrue();
    return token.group(1);
  }

  /** A link token as the broker makes them, signed with {@code key}. */
  private static String token(String questionId, String identity, int option, Instant expires, String key) throws Exception {
    String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(new JsonObject()
        .put("q", questionId).put("u", identity).put("o", option).put("e", expires.getEpochSecond()).encode()
        .getBytes(StandardCharsets.UTF_8));
    return payload + "." + hmacHex(key, "ark-broker email answer link v1\n" + payload);
  }

  @Test
  void theMailedLinkOfAnOptionAnswersAsThePersonItWentToOnceAndNoSecretIsLogged() throws Exception {
    JsonObject asked = ask(HUMAN_NAME, List.of("approve", "reject"), "email:ann");
    String id = asked.getString("id");
    assertThat(delivery(asked, "email:ann").getString("label")).isEqualTo("email to ann");

    MimeMessage mail = mailTo(ANN_EMAIL, id);
    assertThat(mail.getSubject()).startsWith("Question: Rotate the <prod> keys?");
    assertThat(mail.getFrom()[0].toString()).isEqualTo("Ark Broker <ark@example.com>");
    assertThat(delivery(asked, "email:ann").getString("ref")).isEqualTo(mail.getMessageID());
    String text = part(mail, 0);
    String html = part(mail, 1);
    assertThat(text).contains(asked.getString("content")).contains("<script>x</script> & more").contains("Answer \"approve\": ");
    assertThat(html).contains("<pre>Last rotated: 90 days ago\n&lt;script&gt;x&lt;/script&gt; &amp; more</pre>")
        .contains("Rotate the &lt;prod&gt; keys?").doesNotContain("<script>");
    List<String> links = linkTokens(mail);
    assertThat(links).hasSize(2);

    Response page = open(links.get(0));
    assertThat(page.status()).as(page.body()).isEqualTo(200);
    assertThat(page.body()).contains("Answer \"approve\"").contains("method=\"post\"");
    assertThat(page.headers().get("content-security-policy").get(0)).contains("default-src 'none'");
    assertThat(question(id).getString("status")).as("opening the page answers nothing").isEqualTo("pending");

    Response answered = submit(formToken(page), null);

    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    JsonObject after = question(id);
    assertThat(after.getString("status")).isEqualTo("answered");
    assertThat(after.getString("response")).isEqualTo("approve");
    assertThat(after.getString("answeredBy")).isEqualTo(HUMAN_NAME);
    assertAnsweredInChannel(admin, id, HUMAN_NAME, "email:ann");

    Response again = open(links.get(0));
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.body()).contains("already answered");
    assertThat(submit(links.get(1), null).status()).as("the other option's link").isEqualTo(409);
    assertThat(question(id).getString("response")).isEqualTo("approve");

    List<String> logged = LOGGED.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(logged).isNotEmpty();
    for (String line : logged) {
      assertThat(line).doesNotContain(SMTP_PASSWORD).doesNotContain(LINK_SECRET).doesNotContain(links.get(0)).doesNotContain(links.get(1));
    }
  }

  @Test
  void aTeamQuestionIsMailedToEachMemberAndTheFirstTypedAnswerWins() throws Exception {
    String id = ask(TEAM, null, "email:ann").getString("id");
    Eventually.until("mailed to bob too", () -> question(id), q -> delivery(q, "email:bob") != null);
    List<String> bobs = linkTokens(mailTo(BOB_EMAIL, id));
    List<String> anns = linkTokens(mailTo(ANN_EMAIL, id));
    assertThat(bobs).hasSize(1);

    Response page = open(bobs.get(0));
    assertThat(page.body()).contains("<textarea");
    assertThat(submit(formToken(page), "  ").status()).as("an empty answer").isEqualTo(400);
    Response answered = submit(formToken(page), "After the <freeze>, on Tuesday");

    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(answered.body()).contains("After the &lt;freeze&gt;, on Tuesday");
    JsonObject after = question(id);
    assertThat(after.getString("response")).isEqualTo("After the <freeze>, on Tuesday");
    assertThat(after.getString("answeredBy")).isEqualTo(OTHER_HUMAN_NAME);
    assertThat(submit(anns.get(0), "Now").status()).isEqualTo(409);
    assertThat(question(id).getString("answeredBy")).isEqualTo(OTHER_HUMAN_NAME);
  }

  @Test
  void aReminderIsMailedAgainAndTheOneItIsEscalatedToGetsTheQuestionAndMayAnswerIt() throws Exception {
    Response created = broker.as(AGENT).post("/questions", new JsonObject().put("recipient", HUMAN_NAME)
        .put("channels", new JsonArray().add("email")).put("content", "Renew the certificate? " + UUID.randomUUID())
        .put("escalation", new JsonObject().put("remindAfterSeconds", 2).put("escalateAfterSeconds", 4)
            .put("escalateTo", new JsonArray().add(OTHER_HUMAN_NAME))).encode());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String id = created.json().getString("id");

    Eventually.until("reminded, escalated, and mailed to bob", () -> question(id), q -> delivery(q, "email:bob") != null
        && delivery(q, "email:ann").getString("remindedAt") != null && delivery(q, "email:ann").getString("escalatedAt") != null);

    List<MimeMessage> toAnn = mails(ANN_EMAIL, id);
    assertThat(toAnn).extracting(mail -> mail.getSubject().substring(0, mail.getSubject().indexOf(':')))
        .containsExactly("Question", "Reminder", "Escalated");
    assertThat(part(toAnn.get(1), 0)).startsWith("Reminder: question " + id + " still waits for an answer from " + HUMAN_NAME + ".");
    assertThat(part(toAnn.get(2), 0)).startsWith("Escalated: nobody has answered question " + id + " yet, so "
        + OTHER_HUMAN_NAME + " is asked too.");
    MimeMessage toBob = mailTo(BOB_EMAIL, id);
    assertThat(toBob.getSubject()).startsWith("Question: Renew the certificate?");

    Response answered = submit(formToken(open(linkTokens(toBob).get(0))), "Yes, before Friday");
    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(question(id).getString("answeredBy")).isEqualTo(OTHER_HUMAN_NAME);
  }

  @Test
  void aChangedForgedOrExpiredLinkIsRefusedAndChangesNothing() throws Exception {
    String id = ask(HUMAN_NAME, List.of("yes", "no"), "email:ann").getString("id");
    String real = linkTokens(mailTo(ANN_EMAIL, id)).get(0);
    String signature = real.substring(real.indexOf('.') + 1);
    String asBob = token(id, OTHER_HUMAN_NAME, 0, Instant.now().plusSeconds(3600), LINK_SECRET);
    String changed = asBob.substring(0, asBob.indexOf('.') + 1) + signature;
    String forged = token(id, HUMAN_NAME, 0, Instant.now().plusSeconds(3600), "some-other-key-of-at-least-32-characters");
    String expired = token(id, HUMAN_NAME, 0, Instant.now().minusSeconds(60), LINK_SECRET);

    for (String refused : List.of(changed, forged, "garbage", "")) {
      assertThat(open(refused).status()).as("GET " + refused).isEqualTo(403);
      assertThat(submit(refused, null).status()).as("POST " + refused).isEqualTo(403);
    }
    Response late = submit(expired, null);
    assertThat(late.status()).isEqualTo(410);
    assertThat(late.body()).contains("expired");

    JsonObject after = question(id);
    assertThat(after.getString("status")).isEqualTo("pending");
    assertThat(whoAnswered(admin, id)).isNull();
  }
}
