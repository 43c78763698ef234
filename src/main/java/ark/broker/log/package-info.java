/**
 * The event logs every store is kept from: the embedded file log (fsynced, group commit, snapshots) and Kafka topics
 * shared by replicas.
 */
package ark.broker.log;
