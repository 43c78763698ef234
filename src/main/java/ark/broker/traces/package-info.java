/**
 * OpenTelemetry spans of Ark's broker: the spans of each OTLP export request as one record of the traces log, kept
 * by age and bytes, indexed by trace and by session so the dashboard's trace lists and watches read what they
 * return.
 */
package ark.broker.traces;
