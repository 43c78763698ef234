package ark.broker.store;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;

/**
 * A record of the session log: the session's whole document after a change, or a deletion
 * ({@code document} null; a shared log writes a tombstone instead, which lets compaction drop the
 * session).
 *
 * @param owner the name of the principal that started the session, whose budget it counts against (absent in
 *     records from before sessions had owners, and in deletions)
 * @param at when the session was saved (absent in records from before sessions could expire)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record SessionEvent(String id, String document, String owner,
                    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean restated, Instant at) {
}
