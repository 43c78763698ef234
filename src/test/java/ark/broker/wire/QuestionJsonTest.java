package ark.broker.wire;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A body from outside that names a key twice is refused (which value would count is anybody's guess), while the
 * log reads its own records without that check, which cost a fifth of decoding a record at replay.
 */
class QuestionJsonTest {
  private static final byte[] TWICE = "{\"response\": \"yes\", \"response\": \"no\"}".getBytes(StandardCharsets.UTF_8);

  @Test
  void aBodyNamingAKeyTwiceIsRefused() {
    assertThatThrownBy(() -> QuestionJson.MAPPER.readTree(TWICE))
        .hasMessageContaining("Duplicate field 'response'");
  }

  @Test
  void theLogReadsItsOwnRecordsWithoutCheckingForDuplicateKeys() throws Exception {
    JsonNode read = QuestionJson.logReader(JsonNode.class).readValue(TWICE);

    assertThat(read.get("response").asText()).isEqualTo("no");
  }
}
