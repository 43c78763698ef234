/**
 * The MCP protocol of revision 2025-11-25, reusable and knowing nothing of the broker: JSON-RPC, Streamable HTTP,
 * sessions, resumable streams, tasks, and the method table its features fill.
 */
package ark.broker.mcp.protocol;
