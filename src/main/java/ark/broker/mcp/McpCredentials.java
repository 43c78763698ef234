package ark.broker.mcp;

import ark.broker.auth.Actor;
import ark.broker.auth.Grant;

/**
 * What an MCP request's door found out: the grant its token proves, and where the request came from, for the
 * audit trail. The protocol layer carries it untouched to the tools ({@code RequestContext.credentials()}).
 */
record McpCredentials(Grant grant, String address, String userAgent) {
  /** The actor for a request naming {@code assertedAgent} (or none), with where it came from. */
  Actor actFor(String assertedAgent) {
    return grant.actFor(assertedAgent).from(address, userAgent);
  }
}
