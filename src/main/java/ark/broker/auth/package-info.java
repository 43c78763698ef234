/**
 * Who a request is: bearer tokens from the tokens file, OIDC access tokens, a service acting for an agent, turned
 * into the {@link ark.broker.auth.Actor} every request to a store names.
 */
package ark.broker.auth;
