/**
 * The stores of questions and MCP sessions: each the only writer of its log, a view replayed from it, read-your-writes
 * by log position, and snapshots so the log can forget.
 */
package ark.broker.store;
