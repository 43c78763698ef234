/**
 * LLM streams of Ark's broker: each Query's chunks in the order they were posted, their completion and who still
 * posts, kept from the streams log by age and bytes and published to readers on every replica as they become
 * durable.
 */
package ark.broker.streams;
