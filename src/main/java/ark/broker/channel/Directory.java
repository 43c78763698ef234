package ark.broker.channel;

import ark.broker.question.ArkUri;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Who people are on each channel: {@code directory.users} maps a user name (its identity is
 * {@code ark://users/<name>}) to a Slack user id and a GitHub login, {@code directory.teams} maps a team
 * name ({@code ark://teams/<name>}) to the user names of its members. Someone the directory does not
 * know is {@code ark://users/slack:<user id>} or {@code ark://users/github:<login>}.
 */
public final class Directory {
  private static final String USERS = "ark://users/";
  private static final String TEAMS = "ark://teams/";

  private final Map<String, String> bySlackId = new HashMap<>();
  private final Map<String, String> byGitHubLogin = new HashMap<>();
  private final Map<String, String> slackIds = new HashMap<>();
  private final Map<String, String> gitHubLogins = new HashMap<>();
  private final Map<String, Set<String>> teamMembers = new HashMap<>();

  static Directory from(JsonObject directory) {
    Directory result = new Directory();
    directory.getJsonObject("users").forEach(user -> {
      String identity = ArkUri.require("channels.directory.users key", USERS + user.getKey());
      JsonObject accounts = (JsonObject) user.getValue();
      String slack = accounts.getString("slack");
      String github = accounts.getString("github");
      if (slack != null) {
        result.bySlackId.put(slack, identity);
        result.slackIds.put(identity, slack);
      }
      if (github != null) {
        result.byGitHubLogin.put(github.toLowerCase(Locale.ROOT), identity);
        result.gitHubLogins.put(identity, github);
      }
    });
    directory.getJsonObject("teams").forEach(team -> {
      String identity = ArkUri.require("channels.directory.teams key", TEAMS + team.getKey());
      Set<String> members = new HashSet<>();
      ((JsonArray) team.getValue()).forEach(member -> members.add(USERS + member));
      result.teamMembers.put(identity, Set.copyOf(members));
    });
    return result;
  }

  public String identityOfSlackUser(String userId) {
    return bySlackId.getOrDefault(userId, USERS + "slack:" + userId);
  }

  public String identityOfGitHubUser(String login) {
    return byGitHubLogin.getOrDefault(login.toLowerCase(Locale.ROOT), USERS + "github:" + login);
  }

  /** The Slack user id of an identity, for a mention, or null. */
  public String slackUserOf(String identity) {
    return slackIds.get(identity);
  }

  /** The GitHub login of an identity, for a mention, or null. */
  public String gitHubLoginOf(String identity) {
    return gitHubLogins.get(identity);
  }

  /**
   * Whether {@code identity} is someone the question is addressed to: the recipient user, or a member of
   * the recipient team. A question for an agent or a channel is addressed to whoever sees it.
   */
  boolean isAddressedTo(String recipient, String identity) {
    if (recipient.startsWith(USERS)) {
      return recipient.equals(identity);
    }
    if (recipient.startsWith(TEAMS)) {
      return teamMembers.getOrDefault(recipient, Set.of()).contains(identity);
    }
    return true;
  }
}
