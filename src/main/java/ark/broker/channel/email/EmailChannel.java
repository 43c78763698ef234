package ark.broker.channel.email;

import ark.broker.channel.Answering;
import ark.broker.channel.Channel;
import ark.broker.channel.Destination;
import ark.broker.channel.Directory;
import ark.broker.channel.FollowUpNotice;
import ark.broker.channel.Inbound;
import ark.broker.question.Delivery;
import ark.broker.question.EventType;
import ark.broker.question.Question;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Questions by email: {@code email} mails the question's recipient, or each member of the recipient team, at the
 * address {@code channels.directory.users.<name>.email} gives; recipients the directory has no address for get
 * none. Each mail carries one signed {@link AnswerToken} link per option (one link to a form for a question
 * without options), bound to the person it went to; the links open the {@link AnswerPage}. A delivery is recorded
 * per person ({@code email:<user name>}) with the mail's Message-ID as its ref. How the question ended is shown on
 * the answer page, not in a second mail.
 */
public final class EmailChannel implements Channel {
  private static final String NAME = "email";
  static final String ANSWER_PATH = "/channels/email/answer";

  private final SmtpMailer mailer;
  private final EmailSettings settings;
  private final Directory directory;
  private final Clock clock;

  public EmailChannel(Vertx vertx, EmailSettings settings, Directory directory, long timeoutMillis, Clock clock) {
    this.mailer = new SmtpMailer(vertx, settings, timeoutMillis);
    this.settings = settings;
    this.directory = directory;
    this.clock = clock;
  }

  /** What serves the page the links open and takes its answers. */
  public Inbound answerPage(Answering answering) {
    return new AnswerPage(settings.linkSecret(), answering, directory, clock);
  }

  /** Nothing by name alone: who gets mail depends on the question. */
  @Override
  public Destination resolve(String name) {
    return null;
  }

  @Override
  public List<Destination> resolve(String name, Question question) {
    if (!name.equals(NAME)) {
      return List.of();
    }
    return directory.reachEachAsked(question, directory::emailOf, (person, address) -> {
      String user = Directory.userName(person);
      return new Destination(this, NAME + ":" + user, "email:" + person, "email to " + user, person);
    });
  }

  @Override
  public long intervalMillis() {
    return settings.intervalMillis();
  }

  /** A mail sent cannot be looked up afterwards: after a crash between sending and recording, the person gets it twice. */
  @Override
  public Future<Delivery> findPost(Question question, Destination destination) {
    return Future.succeededFuture();
  }

  @Override
  public Future<Delivery> post(Question question, Destination destination) {
    return mail(question, destination, null)
        .map(messageId -> new Delivery(destination.name(), messageId, destination.label(),
            clock.instant().truncatedTo(ChronoUnit.MILLIS)));
  }

  /**
   * The question again, with fresh links, led by the reminder or the escalation. A mail cannot be looked up: after a
   * crash between sending and recording, the person gets it twice.
   */
  @Override
  public Future<Void> showFollowUp(Question question, Destination destination, Delivery posted, EventType step, boolean unsure) {
    return mail(question, destination, FollowUpNotice.text(question, step, directory, UnaryOperator.identity())).mapEmpty();
  }

  /** Mails the question to the destination's person, with a line above it if {@code notice} is given; the Message-ID. */
  private Future<String> mail(Question question, Destination destination, String notice) {
    String person = destination.target();
    String address = directory.emailOf(person);
    Instant expires = clock.instant().plus(settings.linkLifetime()).truncatedTo(ChronoUnit.SECONDS);
    List<MailContent.Link> links = new ArrayList<>();
    if (question.asked().options() == null) {
      links.add(new MailContent.Link(null, link(new AnswerToken(question.id(), person, AnswerToken.FREE_TEXT, expires))));
    } else {
      for (int i = 0; i < question.asked().options().size(); i++) {
        links.add(new MailContent.Link(question.asked().options().get(i), link(new AnswerToken(question.id(), person, i, expires))));
      }
    }
    return mailer.send(address, MailContent.of(question, notice, links, expires), question.id());
  }

  @Override
  public Future<Void> showOutcome(Question question, Destination destination, Delivery posted, boolean unsure) {
    return Future.succeededFuture();
  }

  private String link(AnswerToken token) {
    return settings.publicBaseUrl() + ANSWER_PATH + "?token=" + token.sign(settings.linkSecret());
  }
}
