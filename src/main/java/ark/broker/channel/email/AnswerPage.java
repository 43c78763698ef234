package ark.broker.channel.email;

import ark.broker.bus.Messages.InboundRequest;
import ark.broker.bus.Messages.InboundResponse;
import ark.broker.channel.Answering;
import ark.broker.channel.ChannelUser;
import ark.broker.channel.Directory;
import ark.broker.channel.Inbound;
import ark.broker.channel.InboundProblem;
import ark.broker.channel.Secret;
import ark.broker.question.Question;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * The page an emailed link opens ({@code GET /channels/email/answer?token=…}): the question and a button that
 * confirms the answer (or a box to type it), so a mail scanner that follows links answers nothing. The button
 * posts the token back ({@code POST /channels/email/answer}), which answers as the person the link was mailed to
 * through {@link Answering}; a page on another site cannot make that post, as it does not know the token. Every
 * outcome is a page for a person: a refused link (forged, changed, expired, for a question no longer pending)
 * says why and changes nothing.
 */
final class AnswerPage implements Inbound {
  private static final Logger LOG = LoggerFactory.getLogger(AnswerPage.class);

  private final Secret linkSecret;
  private final Answering answering;
  private final Directory directory;
  private final Clock clock;

  AnswerPage(Secret linkSecret, Answering answering, Directory directory, Clock clock) {
    this.linkSecret = linkSecret;
    this.answering = answering;
    this.directory = directory;
    this.clock = clock;
  }

  @Override
  public Future<InboundResponse> handle(InboundRequest request, String requestId) {
    boolean submitted = request.method().equals("POST");
    if (!submitted && !request.method().equals("GET")) {
      return Future.succeededFuture(page(405, "Not here", "<p>Open the link from your mail.</p>"));
    }
    return Future.succeededFuture(request)
        .map(given -> form(submitted ? given.body().toString(StandardCharsets.UTF_8) : given.query()))
        .compose(fields -> {
          AnswerToken token = AnswerToken.verify(fields.get("token"), linkSecret, clock.instant());
          return answering.question(token.questionId(), requestId).compose(question -> submitted
              ? answer(question, token, fields.get("response"), requestId)
              : Future.succeededFuture(confirm(question, token)));
        })
        .recover(failure -> {
          if (!(failure instanceof InboundProblem problem)) {
            return Future.failedFuture(failure);
          }
          LOG.info("Refused an email answer link with {}: {} [request {}]", problem.status, problem.getMessage(), requestId);
          return Future.succeededFuture(page(problem.status, "Not answered", "<p>" + Html.escape(problem.getMessage()) + "</p>"));
        });
  }

  private InboundResponse confirm(Question question, AnswerToken token) {
    if (!question.isPending()) {
      return over(question);
    }
    String field = token.option() == AnswerToken.FREE_TEXT
        ? "<p><label for=\"response\">Your answer</label><br><textarea id=\"response\" name=\"response\" rows=\"5\" required></textarea></p>"
        + "<button type=\"submit\">Answer</button>"
        : "<button type=\"submit\">Answer \"" + Html.escape(option(question, token)) + "\"</button>";
    return page(200, "Answer a question", describe(question)
        + "<form method=\"post\" action=\"answer\"><input type=\"hidden\" name=\"token\" value=\""
        + Html.escape(token.sign(linkSecret)) + "\">" + field + "</form>"
        + "<p style=\"color:#555;font-size:.9em\">You answer as " + Html.escape(token.identity()) + ".</p>");
  }

  private Future<InboundResponse> answer(Question question, AnswerToken token, String typed, String requestId) {
    if (!question.isPending()) {
      return Future.succeededFuture(over(question));
    }
    String answer = token.option() == AnswerToken.FREE_TEXT ? typed : option(question, token);
    if (answer == null || answer.isBlank()) {
      throw new InboundProblem(400, "the answer is empty; go back and type one");
    }
    ChannelUser user = directory.reachedAt("email:" + Directory.userName(token.identity()), token.identity());
    return answering.answer(question, answer, user, requestId).map(answered -> page(200, "Answered",
        "<p>Thank you. You answered:</p><pre>" + Html.escape(answered.outcome().response()) + "</pre>" + describe(answered)));
  }

  /** The link's option; a link naming one the question does not have was not made for it. */
  private static String option(Question question, AnswerToken token) {
    if (question.asked().options() == null || token.option() < 0 || token.option() >= question.asked().options().size()) {
      throw new InboundProblem(403, "this answer link is not valid for question " + question.id());
    }
    return question.asked().options().get(token.option());
  }

  /** Once a question is answered (or cancelled, or expired), every link for it stays used up. */
  private static InboundResponse over(Question question) {
    String status = question.outcome().status().wireName();
    return page(409, "Already " + status, "<p>This question is already " + Html.escape(status)
        + "; the link no longer answers it.</p>" + describe(question));
  }

  private static String describe(Question question) {
    return "<h1 style=\"font-size:1.25rem\">" + Html.escape(question.asked().content()) + "</h1>"
        + (question.asked().context() == null ? "" : "<pre>" + Html.escape(question.asked().context()) + "</pre>")
        + "<p style=\"color:#555\">Asked by " + Html.escape(question.asked().sender()) + "</p>";
  }

  private static InboundResponse page(int status, String title, String body) {
    return new InboundResponse(status, "text/html; charset=utf-8", Buffer.buffer(Html.page(title, body)));
  }

  private static Map<String, String> form(String encoded) {
    Map<String, String> fields = new HashMap<>();
    if (encoded == null) {
      return fields;
    }
    for (String pair : encoded.split("&")) {
      int equals = pair.indexOf('=');
      try {
        fields.putIfAbsent(URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8),
            equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException malformed) {
        throw new InboundProblem(400, "the request is not form-encoded");
      }
    }
    return fields;
  }
}
