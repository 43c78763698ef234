package ark.broker.question;

import java.util.regex.Pattern;

/**
 * Who asks and who answers: {@code ark://agents/x}, {@code ark://users/x}, {@code ark://teams/x}, {@code ark://channels/x},
 * each optionally in a namespace ({@code ark://agents/<namespace>/<name>}).
 */
public final class ArkUri {
  /** A name may have a namespace, as Ark's agents do ({@code ark://agents/team-a/reviewer}): one "/" inside. */
  private static final Pattern FORM = Pattern.compile(
      "ark://(agents|users|teams|channels)/[A-Za-z0-9][A-Za-z0-9._@+:-]{0,199}(/[A-Za-z0-9][A-Za-z0-9._@+:-]{0,199})?");

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
