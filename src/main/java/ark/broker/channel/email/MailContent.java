package ark.broker.channel.email;

import ark.broker.question.Question;

import java.time.Instant;
import java.util.List;

/**
 * The mail that asks one person a question: the question, its context, who asks and how urgently, and a link per
 * option (or one link to a page where they type the answer), as plain text and as HTML (every question field
 * escaped; the context preformatted, as the asker wrote it).
 */
record MailContent(String subject, String text, String html) {
  /** A subject line stays readable in a mail list. */
  private static final int SUBJECT_CHARACTERS = 100;

  /** One link of the mail: what it answers ({@code null} for "type an answer") and where it goes. */
  record Link(String option, String url) {
  }

  /** @param notice a reminder or an escalation to lead the mail with, or null for the question's first mail */
  static MailContent of(Question question, String notice, List<Link> links, Instant linksExpire) {
    String oneLine = question.asked().content().replaceAll("\\s+", " ").strip();
    String subject = (notice == null ? "Question: " : notice.substring(0, notice.indexOf(':') + 2))
        + (oneLine.length() > SUBJECT_CHARACTERS ? oneLine.substring(0, SUBJECT_CHARACTERS) + "…" : oneLine);
    String about = "Asked by " + question.asked().sender() + " for " + question.asked().recipient() + ", priority " + question.asked().priority().wireName()
        + (question.followUps().expiresAt() == null ? "" : ", open until " + question.followUps().expiresAt());
    String footer = "Each link answers once, as you, and works until " + linksExpire
        + ". Do not forward this mail: whoever has a link can answer with it.";

    StringBuilder text = new StringBuilder(notice == null ? "" : notice + "\n\n").append(question.asked().content()).append("\n\n");
    if (question.asked().context() != null) {
      text.append(question.asked().context()).append("\n\n");
    }
    text.append(about).append("\n\n");
    StringBuilder html = new StringBuilder(notice == null ? "" : "<p><strong>" + Html.escape(notice) + "</strong></p>")
        .append("<p style=\"font-size:1.1em\">").append(Html.escape(question.asked().content())).append("</p>");
    if (question.asked().context() != null) {
      html.append("<pre>").append(Html.escape(question.asked().context())).append("</pre>");
    }
    html.append("<p style=\"color:#555\">").append(Html.escape(about)).append("</p><p>");
    for (Link link : links) {
      String label = link.option() == null ? "Answer" : "Answer \"" + link.option() + "\"";
      text.append(label).append(": ").append(link.url()).append('\n');
      html.append("<a href=\"").append(Html.escape(link.url())).append("\" style=\"display:inline-block;margin:0 .5em .5em 0;"
          + "padding:.5em 1em;border:1px solid #888;border-radius:4px;text-decoration:none\">")
          .append(Html.escape(label)).append("</a>");
    }
    text.append('\n').append(footer).append('\n').append("(question ").append(question.id()).append(")\n");
    html.append("</p><p style=\"color:#555;font-size:.9em\">").append(Html.escape(footer))
        .append("<br>(question ").append(Html.escape(question.id())).append(")</p>");
    return new MailContent(subject, text.toString(), Html.page(subject, html.toString()));
  }
}
