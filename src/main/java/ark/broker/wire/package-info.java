/**
 * The domain as JSON: the one mapper, fast scalar serializers, and a question laid out as the flat object the API and
 * the log have always written.
 */
package ark.broker.wire;
