/**
 * The contracts between rooms: each store declared once as an interface (served by its room, called by the others
 * through {@link ark.broker.bus.BusContract}), the changes stores publish, and every address.
 */
package ark.broker.bus;
