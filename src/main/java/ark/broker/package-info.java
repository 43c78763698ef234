/**
 * Starts the broker: reads the configuration, refuses a start that cannot work before anything listens, deploys
 * every room, and stops them gracefully. The only package that knows every room.
 */
package ark.broker;
