package ark.broker.channel.email;

import ark.broker.channel.DeliveryFailure;
import ark.broker.channel.email.EmailSettings.TlsMode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import org.eclipse.angus.mail.util.MailConnectException;

import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.Properties;

/**
 * Sends mail through the configured SMTP server with Jakarta Mail (Eclipse Angus), which blocks: every send runs
 * on a worker thread, never on the event loop. The password goes to the server and nowhere else.
 */
final class SmtpMailer {
  private final Vertx vertx;
  private final EmailSettings settings;
  private final Session session;

  SmtpMailer(Vertx vertx, EmailSettings settings, long timeoutMillis) {
    this.vertx = vertx;
    this.settings = settings;
    this.session = Session.getInstance(properties(settings, timeoutMillis));
  }

  private static Properties properties(EmailSettings settings, long timeoutMillis) {
    String protocol = settings.tls() == TlsMode.TLS ? "smtps" : "smtp";
    String prefix = "mail." + protocol + ".";
    Properties properties = new Properties();
    properties.put("mail.transport.protocol", protocol);
    // Transport.send picks the transport by address type, which maps to plain smtp unless told otherwise.
    properties.put("mail.transport.protocol.rfc822", protocol);
    properties.put(prefix + "host", settings.host());
    properties.put(prefix + "port", Integer.toString(settings.port()));
    properties.put(prefix + "connectiontimeout", Long.toString(timeoutMillis));
    properties.put(prefix + "timeout", Long.toString(timeoutMillis));
    properties.put(prefix + "writetimeout", Long.toString(timeoutMillis));
    properties.put(prefix + "auth", Boolean.toString(!settings.username().isEmpty()));
    if (settings.tls() == TlsMode.STARTTLS) {
      properties.put(prefix + "starttls.enable", "true");
      // A server that does not offer STARTTLS would otherwise get the password in the clear.
      properties.put(prefix + "starttls.required", "true");
    }
    if (settings.tls() != TlsMode.NONE) {
      properties.put(prefix + "ssl.checkserveridentity", "true");
      if (settings.caFile() != null) {
        properties.put(prefix + "ssl.socketFactory", SmtpTrust.trusting(settings.caFile()));
      }
    }
    return properties;
  }

  /** Sends the mail to one address; the Message-ID it went out with. Fails with a {@link DeliveryFailure}. */
  Future<String> send(String to, MailContent content, String questionId) {
    return vertx.executeBlocking(() -> {
      try {
        MimeMessage message = new MimeMessage(session);
        message.setFrom(new InternetAddress(settings.from(), true));
        message.setRecipient(Message.RecipientType.TO, new InternetAddress(to, true));
        message.setSubject(content.subject(), StandardCharsets.UTF_8.name());
        @SuppressWarnings("JavaUtilDate") // what Jakarta Mail takes
        Date sent = new Date();
        message.setSentDate(sent);
        message.setHeader("X-Ark-Question", questionId);
        MimeBodyPart text = new MimeBodyPart();
        text.setText(content.text(), StandardCharsets.UTF_8.name());
        MimeBodyPart html = new MimeBodyPart();
        html.setText(content.html(), StandardCharsets.UTF_8.name(), "html");
        message.setContent(new MimeMultipart("alternative", text, html));
        message.saveChanges();
        if (settings.username().isEmpty()) {
          Transport.send(message);
        } else {
          Transport.send(message, settings.username(), settings.password().reveal());
        }
        return message.getMessageID();
      } catch (MessagingException e) {
        throw failure(e);
      }
    }, false);
  }

  /** Whether sending again can help, and whether the server may have taken the mail anyway. */
  private DeliveryFailure failure(MessagingException e) {
    String what = "SMTP " + settings.host() + ":" + settings.port() + " ";
    if (e instanceof AuthenticationFailedException) {
      return new DeliveryFailure(what + "refused the username and password", false, -1, false);
    }
    if (e instanceof SendFailedException) {
      return new DeliveryFailure(what + "refused the address: " + e.getMessage(), false, -1, false);
    }
    if (e instanceof MailConnectException) {
      return new DeliveryFailure(what + "could not be reached: " + e.getMessage(), true, -1, false);
    }
    return new DeliveryFailure(what + "failed: " + e.getMessage(), true, -1, true);
  }
}
