package ark.broker.question;

import java.util.regex.Pattern;

/**
 * Who asks and who answers: {@code ark://agents/x}, {@code ark://users/x}, {@code ark://teams/x}, {@code ark://channels/x},
 * agents optionally in a namespace ({@code ark://agents/<namespace>/<name>}).
 */
public final class ArkUri {
  private static final String NAME = "[A-Za-z0-9][A-Za-z0-9._@+:-]{0,199}";
  /** An agent's name may have a namespace, as Ark's agents do ({@code ark://agents/team-a/reviewer}). */
  private static final Pattern FORM = Pattern.compile(
      "ark://agents/" + NAME + "(/" + NAME + ")?|ark://(users|teams|channels)/" + NAME);

  private ArkUri() {
  }

  public static String require(String field, String value) {
    if (value == null || !FORM.matcher(value).matches()) {
      throw new InvalidQuestionException(field + " must look like ark://agents/<name>, ark://users/<name>, "
          + "ark://teams/<name> or ark://channels/<name>, not '" + value + "'");
    }
    return value;
  }
}
