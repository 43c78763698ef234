package ark.broker.channel;

import ark.broker.question.ArkUri;
import ark.broker.question.Question;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Who people are on each channel: {@code directory.users} maps a user name (its identity is
 * {@code ark://users/<name>}) to a Slack user id, a GitHub login and an email address, {@code directory.teams}
 * maps a team name ({@code ark://teams/<name>}) to the user names of its members. Someone the directory does not
 * know is {@code ark://users/slack:<user id>} or {@code ark://users/github:<login>}, in no team.
 */
public final class Directory {
  private static final String USERS = "ark://users/";
  private static final String TEAMS = "ark://teams/";
  /** Slack user ids and GitHub logins are letters, digits and hyphens; this keeps an identity made of one a name. */
  private static final Pattern ACCOUNT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
  /** One plain address: nothing that would make a mail header name more than one, or a display name. */
  private static final Pattern EMAIL = Pattern.compile("[^\\s@<>,;:\"()\\[\\]]{1,64}@[A-Za-z0-9.-]{1,253}");

  private final Map<String, String> bySlackId = new HashMap<>();
  private final Map<String, String> byGitHubLogin = new HashMap<>();
  private final Map<String, String> slackIds = new HashMap<>();
  private final Map<String, String> gitHubLogins = new HashMap<>();
  private final Map<String, String> emails = new HashMap<>();
  /** The members of each team, in the order the configuration lists them. */
  private final Map<String, List<String>> members = new HashMap<>();
  /** The teams of each identity that is in one. */
  private final Map<String, List<String>> teamsOf = new HashMap<>();

  static Directory from(JsonObject directory) {
    Directory result = new Directory();
    directory.getJsonObject("users").forEach(user -> {
      String identity = ArkUri.require("channels.directory.users key", USERS + user.getKey());
      JsonObject accounts = (JsonObject) user.getValue();
      String slack = accounts.getString("slack");
      String github = accounts.getString("github");
      String email = accounts.getString("email");
      if (slack != null) {
        result.bySlackId.put(slack, identity);
        result.slackIds.put(identity, slack);
      }
      if (github != null) {
        result.byGitHubLogin.put(github.toLowerCase(Locale.ROOT), identity);
        result.gitHubLogins.put(identity, github);
      }
      if (email != null) {
        if (!EMAIL.matcher(email).matches()) {
          throw new IllegalArgumentException("channels.directory.users." + user.getKey() + ".email is not a plain email address: '" + email + "'");
        }
        result.emails.put(identity, email);
      }
    });
    directory.getJsonObject("teams").forEach(team -> {
      String identity = ArkUri.require("channels.directory.teams key", TEAMS + team.getKey());
      ((JsonArray) team.getValue()).forEach(member -> {
        result.teamsOf.computeIfAbsent(USERS + member, user -> new ArrayList<>()).add(identity);
        result.members.computeIfAbsent(identity, members -> new ArrayList<>()).add(USERS + member);
      });
    });
    return result;
  }

  /**
   * The person behind a Slack user id.
   *
   * @throws InboundProblem 400 if the id is no Slack user id
   */
  public ChannelUser slackUser(String userId) {
    return user("slack", userId, bySlackId.get(userId));
  }

  /**
   * The person behind a GitHub login.
   *
   * @throws InboundProblem 400 if the login is no GitHub login
   */
  public ChannelUser gitHubUser(String login) {
    return user("github", login, login == null ? null : byGitHubLogin.get(login.toLowerCase(Locale.ROOT)));
  }

  /** The Slack user id of an identity, for a mention, or null. */
  public String slackUserOf(String identity) {
    return slackIds.get(identity);
  }

  /** The GitHub login of an identity, for a mention, or null. */
  public String gitHubLoginOf(String identity) {
    return gitHubLogins.get(identity);
  }

  /** The email address of an identity, or null. */
  public String emailOf(String identity) {
    return emails.get(identity);
  }

  /**
   * The people a recipient stands for, to reach one by one: the person, or each member of the team; none for
   * anything else (an agent, a channel).
   */
  public List<String> peopleOf(String recipient) {
    if (recipient.startsWith(USERS)) {
      return List.of(recipient);
    }
    return recipient.startsWith(TEAMS) ? members.getOrDefault(recipient, List.of()) : List.of();
  }

  /**
   * A destination for each person the question asks (its recipients' people, and after an escalation those it was
   * escalated to), once each, who has an account on a channel that reaches people one by one.
   *
   * @param accountOf the person's account there (an address, a user id), or null for someone it cannot reach
   * @param to        the destination for a person's identity and account
   */
  public List<Destination> reachEachAsked(Question question, UnaryOperator<String> accountOf,
                                          BiFunction<String, String, Destination> to) {
    Set<String> people = new LinkedHashSet<>();
    for (String recipient : question.recipients()) {
      people.addAll(peopleOf(recipient));
    }
    List<Destination> destinations = new ArrayList<>();
    for (String person : people) {
      String account = accountOf.apply(person);
      if (account != null) {
        destinations.add(to.apply(person, account));
      }
    }
    return destinations;
  }

  /** The user name of a person's identity ({@code ann} for {@code ark://users/ann}). */
  public static String userName(String identity) {
    return identity.substring(USERS.length());
  }

  /** A person acting through an account the broker reached them at: their identity as given, their directory teams. */
  public ChannelUser reachedAt(String account, String identity) {
    return new ChannelUser(account, identity, teamsOf.getOrDefault(identity, List.of()));
  }

  /** @param known the identity the directory gives the account, or null */
  private ChannelUser user(String channel, String account, String known) {
    if (account == null || !ACCOUNT.matcher(account).matches()) {
      throw new InboundProblem(400, "'" + account + "' is not a " + channel + " account");
    }
    String identity = known != null ? known : USERS + channel + ":" + account;
    return new ChannelUser(channel + ":" + account, identity, teamsOf.getOrDefault(identity, List.of()));
  }
}
