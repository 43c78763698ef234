/**
 * The domain: questions, what they ask, how they are answered, their follow-ups and outcome, and every rule about
 * them. Plain Java: no Vert.x, no I/O.
 */
package ark.broker.question;
