/**
 * Who may see and do what to questions: the one authorizer, asked by the store before every read and write,
 * whichever surface the request came through.
 */
package ark.broker.access;
