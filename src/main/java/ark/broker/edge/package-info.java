/**
 * What every HTTP port does at its edge, before routing: connection and header limits, slow and idle clients,
 * host and authority checks, and one line for a flood of malformed requests.
 */
package ark.broker.edge;
