/**
 * The REST surface: questions (list, watch over SSE, create, answer, cancel, history, audit), who am I, health and
 * readiness, metrics, the channels' inbound requests, and the dashboard.
 */
package ark.broker.http;
