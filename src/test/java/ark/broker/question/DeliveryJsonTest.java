package ark.broker.question;

import ark.broker.wire.QuestionJson;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** Deliveries gained {@code outcome}; records written before it still read, and records without one do not show it. */
class DeliveryJsonTest {
  private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void anOutcomeIsWrittenOnlyOnceThereIsOne() throws Exception {
    Delivery posted = new Delivery("slack", "C1/1.2", "Slack #ops", AT);

    assertThat(QuestionJson.MAPPER.writeValueAsString(posted)).doesNotContain("outcome");
    assertThat(QuestionJson.MAPPER.writeValueAsString(posted.showing(QuestionStatus.ANSWERED, AT)))
        .contains("\"outcome\":\"answered\"");
  }

  @Test
  void recordsWithAndWithoutAnOutcomeReadBack() throws Exception {
    Delivery old = QuestionJson.MAPPER.readValue(
        "{\"channel\":\"slack\",\"ref\":\"C1/1.2\",\"label\":\"Slack #ops\",\"at\":\"2026-01-01T00:00:00Z\"}", Delivery.class);
    Delivery shown = QuestionJson.MAPPER.readValue(
        "{\"channel\":\"slack\",\"ref\":\"C1/1.2\",\"at\":\"2026-01-01T00:00:00Z\",\"outcome\":\"expired\"}", Delivery.class);

    assertThat(old).isEqualTo(new Delivery("slack", "C1/1.2", "Slack #ops", AT));
    assertThat(shown.outcome()).isEqualTo(QuestionStatus.EXPIRED);
  }
}
