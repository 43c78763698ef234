/**
 * Level-triggered, once-only work: a periodic full pass while this replica is the worker, and a keyed work queue
 * with per-key serialisation, retries and backoff.
 */
package ark.broker.reconcile;
