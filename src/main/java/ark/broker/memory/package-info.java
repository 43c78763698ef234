/**
 * Conversation memory of Ark's broker: messages per conversation and Query, kept from the memory log by age and
 * bytes, indexed so a conversation reads in what it returns, and served to every replica's readers alike.
 */
package ark.broker.memory;
