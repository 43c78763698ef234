/**
 * The Kubernetes surface: pending questions shown on the Queries that asked them, and Ark's A2ATask approvals turned
 * into questions whose decisions go back to Ark; on the worker replica only.
 */
package ark.broker.kube;
