package ark.broker.streams;

import ark.broker.log.StoreMeters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a Query's stream ends for its readers, as every replica decides it from the streams log: a {@code /complete}
 * (often on another replica) ends it only once no request is still posting chunks, an error chunk ends it at once,
 * and a poster that went silent (its replica died) counts as gone after the idle time.
 */
class StreamsTest {
  private static final long IDLE = 1_000;
  private static final String QUERY = "q";

  private final Streams streams = new Streams(new StreamSettings(1 << 20, 3_600_000, IDLE, 1_000, 1_000, 1_000),
        new StoreMeters(new SimpleMeterRegistry(), "streams", "", unused -> 0, unused -> 0));
  private long position;

  private Streams.Applied apply(StreamRecord record, long now) {
    return streams.apply(++position, record, now);
  }

  private static StreamRecord.Chunk chunk(String producer, long at, String content) {
    return new StreamRecord.Chunk(QUERY, producer, at, false, ("\"" + content + "\"").getBytes(StandardCharsets.UTF_8));
  }

  private List<String> readable() {
    return streams.state(QUERY, true, position).chunks().stream()
        .map(bytes -> new String(bytes, StandardCharsets.UTF_8)).toList();
  }

  @Test
  void aCompletionWhileARequestStillPostsEndsTheStreamOnlyWhenThatRequestEnds() {
    apply(new StreamRecord.Opened(QUERY, "long-post", 0), 0);
    apply(chunk("long-post", 1, "one"), 1);

    assertThat(apply(new StreamRecord.Completed(QUERY, 2), 2).ended()).as("completed, still posting").isFalse();
    assertThat(apply(chunk("long-post", 3, "late"), 3).ended()).isFalse();
    assertThat(apply(new StreamRecord.Closed(QUERY, "long-post", 4), 4).ended()).isTrue();
    assertThat(readable()).containsExactly("\"one\"", "\"late\"");
  }

  @Test
  void aCompletionWithNobodyPostingEndsTheStreamAtOnceAndOnlyOnce() {
    apply(chunk(null, 0, "one"), 0);

    assertThat(apply(new StreamRecord.Completed(QUERY, 1), 1).ended()).isTrue();
    assertThat(apply(new StreamRecord.Completed(QUERY, 2), 2).ended()).as("already completed").isFalse();
  }

  @Test
  void aRequestOpenedAfterTheCompletionDoesNotHoldTheStreamOpen() {
    apply(chunk(null, 0, "one"), 0);
    apply(new StreamRecord.Completed(QUERY, 1), 1);

    apply(new StreamRecord.Opened(QUERY, "too-late", 2), 2);

    assertThat(streams.stream(QUERY).posting).isEmpty();
    assertThat(streams.stream(QUERY).ended).isTrue();
  }

  @Test
  void anErrorChunkEndsTheStreamEvenWhileARequestPostsAndReadersStopThere() {
    apply(new StreamRecord.Opened(QUERY, "long-post", 0), 0);
    apply(chunk("long-post", 1, "one"), 1);

    StreamRecord.Chunk error = new StreamRecord.Chunk(QUERY, "long-post", 2, true, "{\"error\":{}}".getBytes(
        StandardCharsets.UTF_8));
    assertThat(apply(error, 2).ended()).isTrue();
    apply(chunk("long-post", 3, "after the error"), 3);
    assertThat(readable()).containsExactly("\"one\"", "{\"error\":{}}");
  }

  @Test
  void aPosterSilentForLongerThanTheIdleTimeCountsAsGoneAndEndsACompletedStream() {
    apply(new StreamRecord.Opened(QUERY, "killed-replica", 0), 0);
    apply(chunk("killed-replica", 100, "one"), 100);
    apply(new StreamRecord.Completed(QUERY, 200), 200);

    assertThat(streams.endSilentPosters(100 + IDLE)).as("silent exactly the idle time").isEmpty();
    assertThat(streams.endSilentPosters(100 + IDLE + 1)).containsExactly(QUERY);
    assertThat(streams.stream(QUERY).ended).isTrue();
  }

  @Test
  void aPosterThatKeepsPostingIsNeverCountedAsGone() {
    apply(new StreamRecord.Opened(QUERY, "slow-llm", 0), 0);
    apply(new StreamRecord.Completed(QUERY, 1), 1);
    for (long at = IDLE / 2; at < 5 * IDLE; at += IDLE / 2) {
      apply(chunk("slow-llm", at, "token"), at);
      assertThat(streams.endSilentPosters(at + IDLE / 2)).as("at %s", at).isEmpty();
    }
  }
}
