package ark.broker.wire;

import ark.broker.question.Question;
import ark.broker.question.QuestionEvent;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Questions are written exactly as the broker of format 1 wrote them, whatever the domain's shape: the fixtures
 * were written by that broker (plain, form and approval questions in every status, with escalations, deliveries
 * and history), and each is read and written again byte for byte, as the REST API shows a question and as the
 * event log keeps it.
 */
class QuestionWireFormatTest {

  @ParameterizedTest
  @CsvSource({"questions-as-shown.ndjson, false", "questions-as-kept.ndjson, true"})
  void everyQuestionReadsAndWritesBackToTheSameBytes(String fixture, boolean kept) throws IOException {
    ObjectReader reader = QuestionJson.MAPPER.readerFor(Question.class);
    ObjectWriter writer = kept ? QuestionJson.LOG_WRITER : QuestionJson.MAPPER.writer();
    for (String line : lines(fixture)) {
      Question question = reader.readValue(line);

      assertThat(writer.writeValueAsString(question)).isEqualTo(line);
    }
  }

  @ParameterizedTest
  @CsvSource("question-events.ndjson")
  void everyLogRecordReadsAndWritesBackToTheSameBytes(String fixture) throws IOException {
    ObjectReader reader = QuestionJson.logReader(QuestionEvent.class);
    for (String line : lines(fixture)) {
      QuestionEvent event = reader.readValue(line);

      assertThat(QuestionJson.LOG_WRITER.writeValueAsString(event)).isEqualTo(line);
    }
  }

  static List<String> lines(String fixture) throws IOException {
    try (InputStream in = QuestionWireFormatTest.class.getResourceAsStream("/fixtures/format-1/" + fixture)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
  }
}
