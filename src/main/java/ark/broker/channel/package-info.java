/**
 * Channels: questions shown where people are (Slack, GitHub, email, signed webhooks) and their answers taken back,
 * with deliveries recorded on the questions.
 */
package ark.broker.channel;
