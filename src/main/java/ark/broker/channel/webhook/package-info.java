/**
 * The generic webhook channel: signed question events posted to a configured receiver.
 */
package ark.broker.channel.webhook;
