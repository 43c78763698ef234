/**
 * Query operation events of Ark's broker, kept from the events log by age and bytes, indexed by Query and by
 * session; and the facts Ark's sessions are projected from (every event's and every {@code POST /sessions}'s
 * activity, and the purges of the sessions), kept by the sessions' own bounds so a projection rebuilds from them.
 */
package ark.broker.events;
