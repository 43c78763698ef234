/**
 * Log lines no client can forge or fill with secrets: client text escaped in every line, and an optional JSON
 * format for log shippers.
 */
package ark.broker.logging;
