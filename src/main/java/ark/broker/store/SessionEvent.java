package ark.broker.store;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A record of the session log: the session's whole document after a change, or a deletion
 * ({@code document} null; a shared log writes a tombstone instead, which lets compaction drop the
 * session).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record SessionEvent(String id, String document,
                    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean restated) {
}
