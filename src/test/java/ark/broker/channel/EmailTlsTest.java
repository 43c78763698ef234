package ark.broker.channel;

import ark.broker.testing.Eventually;
import ark.broker.testing.TestBroker;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static ark.broker.channel.ChannelTesting.delivery;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mail channel's TLS against real SMTP servers on loopback (GreenMail): TLS from the first byte to a server
 * whose certificate a private CA issued (trusted through {@code channels.email.caFile}, its name checked), refused
 * when that CA is not trusted, and {@code starttls} refusing a server that does not offer STARTTLS rather than
 * sending the password in the clear.
 */
class EmailTlsTest {
  private static final String PASSWORD = "smtp-password-tls-test-5Kd";
  private static final String STORE_PASSWORD = "keystore-for-tests";

  @TempDir
  static Path dir;
  static GreenMail smtps;
  static GreenMail plainSmtp;
  static Path caFile;
  static final ListAppender<ILoggingEvent> LOGGED = new ListAppender<>();

  @BeforeAll
  static void start() throws Exception {
    Path keystore = dir.resolve("smtp.p12");
    caFile = dir.resolve("ca.pem");
    keytool("-genkeypair", "-alias", "smtp", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname", "CN=localhost",
        "-ext", "san=ip:127.0.0.1,dns:localhost", "-keystore", keystore.toString(), "-storetype", "PKCS12",
        "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
    keytool("-exportcert", "-rfc", "-alias", "smtp", "-keystore", keystore.toString(), "-storepass", STORE_PASSWORD,
        "-file", caFile.toString());
    // GreenMail's TLS servers read their key from these when the first one starts.
    System.setProperty("greenmail.tls.keystore.file", keystore.toString());
    System.setProperty("greenmail.tls.keystore.password", STORE_PASSWORD);
    System.setProperty("greenmail.tls.key.password", STORE_PASSWORD);
    smtps = new GreenMail(new ServerSetup(3465, "127.0.0.1", ServerSetup.PROTOCOL_SMTPS).dynamicPort());
    smtps.setUser("ark@example.com", "broker", PASSWORD);
    smtps.start();
    plainSmtp = new GreenMail(new ServerSetup(3025, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort());
    plainSmtp.setUser("ark@example.com", "broker", PASSWORD);
    plainSmtp.start();
    LOGGED.start();
    ((Logger) LoggerFactory.getLogger(Dispatcher.class)).addAppender(LOGGED);
  }

  @AfterAll
  static void stop() {
    ((Logger) LoggerFactory.getLogger(Dispatcher.class)).detachAppender(LOGGED);
    smtps.stop();
    plainSmtp.stop();
  }

  private static void keytool(String... arguments) throws Exception {
    String[] command = new String[arguments.length + 1];
    command[0] = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    System.arraycopy(arguments, 0, command, 1, arguments.length);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
  }

  private static TestBroker broker(String name, GreenMail server, String tls, Path trusted) throws Exception {
    JsonObject email = new JsonObject().put("enabled", true).put("host", "127.0.0.1").put("port", server.getSmtp() != null
            ? server.getSmtp().getPort() : server.getSmtps().getPort())
        .put("tls", tls).put("username", "broker").put("password", PASSWORD).put("from", "Ark Broker <ark@example.com>")
        .put("publicBaseUrl", "https://ark.example.com").put("linkSecret", "link-secret-for-tls-tests-0123456789abcdef")
        .put("caFile", trusted == null ? "" : trusted.toString());
    JsonObject channels = new JsonObject().put("retryBaseMillis", 100).put("retryMaxMillis", 500)
        .put("directory", new JsonObject().put("users", new JsonObject().put("ann", new JsonObject().put("email", "ann@example.com"))))
        .put("email", email);
    return TestBroker.start(dir.resolve(name), new JsonObject().put("channels", channels));
  }

  private static String ask(TestBroker broker) throws Exception {
    return broker.ask("{'recipient':'ark://users/ann','content':'Renew the TLS certificate?','channels':['email']}").getString("id");
  }

  /** Asks, waits until the dispatcher has reported failing to mail the question, and checks that nothing was mailed. */
  private static void notMailed(TestBroker broker, GreenMail server) throws Exception {
    int before = server.getReceivedMessages().length;
    String id = ask(broker);
    Eventually.until("the mail fails", () -> LOGGED.list.stream().anyMatch(event -> event.getFormattedMessage().contains(id)
        && event.getFormattedMessage().contains("email to ann")), failed -> failed);
    assertThat(server.getReceivedMessages()).hasSize(before);
    assertThat(delivery(broker.get("/questions/" + id).json(), "email:ann")).isNull();
    assertThat(LOGGED.list.stream().map(ILoggingEvent::getFormattedMessage)).noneMatch(line -> line.contains(PASSWORD));
  }

  @Test
  void implicitTlsToAServerOfAPrivateCaDeliversWhenThatCaIsTrusted() throws Exception {
    try (TestBroker broker = broker("trusted", smtps, "tls", caFile)) {
      String id = ask(broker);

      JsonObject mailed = Eventually.until("mailed over TLS", () -> broker.get("/questions/" + id).json(),
          question -> delivery(question, "email:ann") != null);

      assertThat(delivery(mailed, "email:ann").getString("label")).isEqualTo("email to ann");
      assertThat(java.util.Arrays.stream(smtps.getReceivedMessages()).filter(mail -> {
        try {
          return id.equals(mail.getHeader("X-Ark-Question", null));
        } catch (jakarta.mail.MessagingException e) {
          throw new IllegalStateException(e);
        }
      })).hasSize(1);
    }
  }

  @Test
  void aServerWhoseCertificateNoTrustedCaIssuedGetsNothing() throws Exception {
    try (TestBroker broker = broker("untrusted", smtps, "tls", null)) {
      notMailed(broker, smtps);
    }
  }

  @Test
  void starttlsRefusesAServerThatDoesNotOfferIt() throws Exception {
    try (TestBroker broker = broker("starttls", plainSmtp, "starttls", caFile)) {
      notMailed(broker, plainSmtp);
    }
  }
}
