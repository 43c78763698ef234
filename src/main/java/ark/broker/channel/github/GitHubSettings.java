package ark.broker.channel.github;

import ark.broker.channel.ApiClient;
import ark.broker.channel.Secret;
import io.vertx.core.json.JsonObject;

import java.util.List;

/** Settings of GitHub: its REST API, token, webhook secret and the repositories questions may name. */
public record GitHubSettings(String apiBaseUrl, Secret token, Secret webhookSecret, List<String> repositories,
                             String defaultIssue, long intervalMillis, int rememberDeliveries) {

  public static GitHubSettings from(JsonObject github) {
    String defaultIssue = github.getString("defaultIssue");
    if (!defaultIssue.isEmpty() && IssueRef.parse(defaultIssue) == null) {
      throw new IllegalArgumentException("channels.github.defaultIssue must look like owner/repo#123, not '" + defaultIssue + "'");
    }
    return new GitHubSettings(
        ApiClient.baseUrl(github, "channels.github.apiBaseUrl"),
        Secret.required(github, "channels.github.token"),
        Secret.required(github, "channels.github.webhookSecret"),
        github.getJsonArray("repositories").stream().map(String::valueOf).toList(),
        defaultIssue,
        github.getLong("intervalMillis"),
        github.getInteger("rememberDeliveries"));
  }
}
