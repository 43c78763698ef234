package ark.broker.question;

import ark.broker.wire.QuestionJson;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scalars every question holds: instants are written as {@link Instant#toString()} writes them, whatever
 * their precision or year, enums as their wire names, and both read back.
 */
class ScalarJsonTest {

  @Test
  void everyPrecisionAndYearIsWrittenAsInstantToStringWritesIt() throws Exception {
    List<Instant> instants = List.of(
        Instant.parse("2026-11-22T10:30:00Z"),
        Instant.parse("2026-11-22T10:30:00.123Z"),
        Instant.parse("2026-11-22T10:30:00.100Z"),
        Instant.parse("2026-11-22T10:30:00.000123Z"),
        Instant.parse("2026-11-22T10:30:00.000000001Z"),
        Instant.parse("2024-02-29T23:59:59.999999999Z"),
        Instant.EPOCH,
        Instant.ofEpochSecond(-1, 5_000_000),
        Instant.parse("0000-01-01T00:00:00Z"),
        Instant.parse("9999-12-31T23:59:59.999Z"),
        Instant.parse("+10000-01-01T00:00:00Z"),
        Instant.parse("-0001-12-31T23:59:59Z"),
        Instant.MIN,
        Instant.MAX);

    for (Instant instant : instants) {
      String json = QuestionJson.MAPPER.writeValueAsString(instant);

      assertThat(json).isEqualTo("\"" + instant + "\"");
      assertThat(QuestionJson.MAPPER.readValue(json, Instant.class)).isEqualTo(instant);
    }
  }

  @Test
  void enumsAreWrittenAsTheirWireNames() throws Exception {
    assertWireNames(QuestionStatus.class, QuestionStatus::wireName);
    assertWireNames(EventType.class, EventType::wireName);
    assertWireNames(Priority.class, Priority::wireName);
    assertWireNames(QuestionKind.class, QuestionKind::wireName);
    assertWireNames(Decision.Action.class, Decision.Action::wireName);
    assertThat(QuestionJson.MAPPER.writeValueAsString(QuestionStatus.CANCELLED)).isEqualTo("\"cancelled\"");
    assertThat(QuestionJson.MAPPER.writeValueAsString(EventType.ANSWERED)).isEqualTo("\"question_answered\"");
  }

  private static <E extends Enum<E>> void assertWireNames(Class<E> type, Function<E, String> wireName) throws Exception {
    for (E constant : type.getEnumConstants()) {
      String json = QuestionJson.MAPPER.writeValueAsString(constant);

      assertThat(json).isEqualTo("\"" + wireName.apply(constant) + "\"");
      assertThat(QuestionJson.MAPPER.readValue(json, type)).isEqualTo(constant);
    }
  }
}
