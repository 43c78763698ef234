package ark.broker.channel.github;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A GitHub issue or pull request, written {@code owner/repo#123} as in GitHub's own references. */
record IssueRef(String owner, String repo, long number) {
  private static final Pattern FORM = Pattern.compile("([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100})#([1-9][0-9]{0,9})");

  /** The reference, or null if the text is not one. */
  static IssueRef parse(String text) {
    Matcher matcher = FORM.matcher(text);
    if (!matcher.matches() || matcher.group(2).equals(".") || matcher.group(2).equals("..")) {
      return null;
    }
    return new IssueRef(matcher.group(1), matcher.group(2), Long.parseLong(matcher.group(3)));
  }

  String repository() {
    return owner + "/" + repo;
  }

  /** Same issue: GitHub's owner and repository names are not case-sensitive. */
  boolean sameAs(IssueRef other) {
    return number == other.number && repository().equalsIgnoreCase(other.repository());
  }

  String commentsPath() {
    return "/repos/" + owner + "/" + repo + "/issues/" + number + "/comments";
  }

  @Override
  public String toString() {
    return repository() + "#" + number;
  }
}
