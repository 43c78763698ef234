package ark.broker.channel.email;

/** Text from questions made safe to put into HTML, as element content or as a quoted attribute value. */
final class Html {
  private Html() {
  }

  static String escape(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** A whole small page: no script, no outside resources, styles inline. */
  static String page(String title, String body) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>" + escape(title) + "</title>"
        + "<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}"
        + "pre{white-space:pre-wrap;background:#f4f4f4;padding:.75rem;border-radius:4px}"
        + "button{font-size:1rem;padding:.5rem 1.25rem}textarea{width:100%;font:inherit}</style>"
        + "</head><body>" + body + "</body></html>\n";
  }
}
