/**
 * The MCP surface: the ask_question tool and its follow-ups, questions as resources, questions as MCP tasks, on the
 * protocol layer.
 */
package ark.broker.mcp;
