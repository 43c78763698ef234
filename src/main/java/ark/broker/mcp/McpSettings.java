package ark.broker.mcp;

import ark.broker.bus.QuestionRetention;
import ark.broker.bus.SessionIdle;
import ark.broker.edge.ServerLimits;
import ark.broker.mcp.protocol.ServerSettings;
import io.vertx.core.json.JsonObject;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The MCP surface's settings, from the {@code mcp} section.
 *
 * @param server how the protocol endpoint behaves
 * @param sessionIdle how long an unused session lives (the session store ends it then); zero: until its
 *     client ends it
 * @param progressIntervalMillis a call waiting for an answer tells its client how it stands this often
 * @param plainCallWaitSeconds how long a plain ask_question call waits for the answer before it returns the question
 *     as pending, unless the call or its host asks otherwise; zero: until answered
 * @param taskPollIntervalMillis how often clients are told to poll a task
 * @param sessionCacheSize how many sessions each replica keeps in memory
 * @param maxSessions how many sessions may exist at once, on all replicas together (the session store refuses more)
 * @param limits connections, timeouts and header sizes the port allows
 * @param retention how long questions, and so tasks, are kept once settled: a task's {@code ttl}
 */
public record McpSettings(String host, int port, ServerSettings server, Duration sessionIdle,
                          long progressIntervalMillis, long plainCallWaitSeconds, long taskPollIntervalMillis, int sessionCacheSize,
                          int maxSessions, ServerLimits limits, QuestionRetention retention) {

  /**
   * @param dataDir the data directory of a broker on its own file log, or null for replicas sharing Kafka
   * @param retention how long the question store keeps questions
   */
  public static McpSettings from(JsonObject mcp, Path dataDir, QuestionRetention retention) {
    long plainCallWait = mcp.getLong("plainCallWaitSeconds");
    if (plainCallWait < 0) {
      throw new IllegalArgumentException("mcp.plainCallWaitSeconds must not be negative (0: until answered), not " + plainCallWait);
    }
    Duration sessionIdle = Duration.ofSeconds(mcp.getLong("sessionIdleSeconds"));
    ServerSettings server = new ServerSettings(
        mcp.getString("path"),
        mcp.getLong("bodyLimitBytes"),
        mcp.getJsonArray("allowedHosts").stream().map(Object::toString).toList(),
        mcp.getLong("sseRetryMillis"),
        mcp.getLong("heartbeatSeconds") * 1000,
        mcp.getLong("clientRequestTimeoutSeconds") * 1000,
        SessionIdle.period(sessionIdle).toMillis(),
        mcp.getInteger("maxSessionBytes"),
        mcp.getInteger("maxSubscriptionsPerSession"),
        mcp.getInteger("maxSubscriptionUriLength"),
        StreamTokenKeySource.from(mcp, dataDir));
    return new McpSettings(mcp.getString("host"), mcp.getInteger("port"), server, sessionIdle,
        mcp.getLong("progressIntervalSeconds") * 1000, plainCallWait, mcp.getLong("taskPollIntervalMillis"),
        mcp.getInteger("sessionCacheSize"), mcp.getInteger("maxSessions"),
        ServerLimits.from("mcp", mcp, mcp.getLong("heartbeatSeconds")), retention);
  }
}
