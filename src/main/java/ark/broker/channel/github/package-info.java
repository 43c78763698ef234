/**
 * The GitHub channel: questions as issue comments, answers by comment command, signed webhooks.
 */
package ark.broker.channel.github;
