package ark.broker.bus;

import ark.broker.auth.Actor;
import io.vertx.core.Future;

import java.util.List;

/**
 * OpenTelemetry spans, as Ark's controller and executors export them over OTLP/HTTP and ark-api and the dashboard
 * read them (the {@code /v1/traces} and {@code /traces} routes of Ark's broker). The spans of one export request are
 * one record of the traces log; a span's sequence is {@link #sequence} of that record's position and the span's
 * place in it, so cursors are stable across replicas, restarts and purges. Served over the bus at
 * {@link Addresses#TRACE_STORE}; spans are published on {@link Addresses#SPANS_APPENDED}. Refusals fail with a
 * {@link StoreFailure}.
 */
public interface TraceStore {
  /** How many spans one record may hold: a span's sequence leaves room for this many per position. */
  int SPANS_PER_RECORD = 1 << 16;

  /** The sequence of the span at {@code index} of the record at {@code position}. */
  static long sequence(long position, int index) {
    return position * SPANS_PER_RECORD + index;
  }

  /** The log position of the record that holds the span of sequence {@code sequence}. */
  static long positionOf(long sequence) {
    return sequence / SPANS_PER_RECORD;
  }

  /** Appends the spans of one export request, in their order; completes once durable and applied here. */
  Future<Void> append(Actor actor, List<NewSpan> spans);

  /**
   * Traces, newest first (by the sequence of their first span), each with its spans in order, as
   * {@code {"traceId","spans"}}; with a session, only the spans of that session, and the traces that have some. At
   * most {@code limit} traces whose first span is before {@code before} (null: from the newest); the page's last is
   * the last trace's first sequence.
   */
  Future<ItemPage> traces(Actor actor, String sessionId, Long before, int limit);

  /**
   * The spans the filter matches with a sequence above {@code cursor}, in order, as readers get them; at most
   * {@code limit} of them, or all when {@code limit} is 0.
   */
  Future<ItemPage> spans(Actor actor, SpanFilter filter, long cursor, int limit);

  /** Deletes every span; sequences go on where they were. */
  Future<Void> deleteAll(Actor actor);

  /**
   * One span of an export request.
   *
   * @param sessionId its {@code ark.session.id} attribute, or null
   * @param span the span as compact JSON, as upstream renders it, without its sequence
   */
  record NewSpan(String traceId, String sessionId, byte[] span) {
  }

  /** Which spans a read wants: any or all of a trace and a session (null: any). */
  record SpanFilter(String traceId, String sessionId) {
  }
}
