/**
 * Which replica is the worker, the one that does once-only work: the member owning the worker group's partition on
 * Kafka, or the only process.
 */
package ark.broker.worker;
