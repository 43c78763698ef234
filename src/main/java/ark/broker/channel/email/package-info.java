/**
 * The email channel: questions mailed over SMTP with signed answer links, and the answer page those links open.
 */
package ark.broker.channel.email;
