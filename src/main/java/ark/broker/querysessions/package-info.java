/**
 * Ark's sessions, projected from the facts of the events log and the messages of conversation memory: the same
 * sessions on every replica, a Query's phase following its events' own timestamps rather than their arrival, bounded
 * by the sessions' age and bytes. Owns no log: it reads the events and memory stores through their contracts.
 */
package ark.broker.querysessions;
