package ark.broker.store;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A record of the session log: the session's whole document after a change, or a deletion
 * ({@code document} null), which is what lets a compacted log drop the session.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record SessionEvent(String id, String document, String writer,
                    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean restated) {
}
