package ark.broker.mcp.protocol;

import java.util.List;

/**
 * How the MCP endpoint behaves.
 *
 * @param allowedHosts host names (any port) accepted in the Host header and in the Origin header when a
 *     request has one; "*.domain" accepts any name under domain; "*" accepts any, for use behind a
 *     proxy that checks them
 * @param sseRetryMillis how long clients wait before reconnecting a cut stream
 * @param heartbeatMillis idle streams get a comment this often, so proxies keep them open
 * @param clientRequestTimeoutMillis how long a request to the client (elicitation, sampling) may take
 * @param sessionSaveMillis a session in use is saved again when its last save is older than this, so
 *     the store does not end it as idle; zero when sessions never idle out
 * @param maxSessionBytes the largest session {@code initialize} may store (its JSON, clientInfo and
 *     capabilities included); subscriptions are bounded by the next two
 * @param maxSubscriptionsPerSession resources one session may subscribe to
 * @param maxSubscriptionUriLength the longest URI a session may subscribe to
 * @param streamTokenKeys the keys that sign the tokens in event ids, so only the session they were issued to
 *     resumes a stream; the same on every replica
 */
public record ServerSettings(String path, long bodyLimitBytes, List<String> allowedHosts,
                             long sseRetryMillis, long heartbeatMillis, long clientRequestTimeoutMillis,
                             long sessionSaveMillis, int maxSessionBytes, int maxSubscriptionsPerSession,
                             int maxSubscriptionUriLength, StreamTokenKeys streamTokenKeys) {
}
