/**
 * The Slack channel: questions as messages with buttons and forms, answers by interaction, signed requests.
 */
package ark.broker.channel.slack;
