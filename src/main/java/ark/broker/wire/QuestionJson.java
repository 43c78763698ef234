package ark.broker.wire;

import ark.broker.question.Decision;
import ark.broker.question.EventType;
import ark.broker.question.Priority;
import ark.broker.question.Question;
import ark.broker.question.QuestionKind;
import ark.broker.question.QuestionStatus;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.deser.std.StdDelegatingDeserializer;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdDelegatingSerializer;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;

import java.time.Instant;

/**
 * The one JSON mapping of the domain: the log, the REST API and MCP all write questions this way (a question as one
 * flat object, {@link QuestionWire}).
 */
public final class QuestionJson {
  public static final ObjectMapper MAPPER = JsonMapper.builder()
      .addModule(new JavaTimeModule())
      .addModule(new BlackbirdModule())
      .addModule(new SimpleModule("questions-as-one-object")
          .addSerializer(Question.class, new StdDelegatingSerializer(new QuestionWire.Writing()))
          .addDeserializer(Question.class, new StdDelegatingDeserializer<>(new QuestionWire.Reading())))
      .addModule(new SimpleModule("fast-scalars").addDeserializer(Instant.class, new InstantText())
          .addSerializer(Instant.class, new IsoInstantSerializer())
          .addSerializer(QuestionStatus.class, new WireNameSerializer<>(QuestionStatus.class, QuestionStatus::wireName))
          .addSerializer(EventType.class, new WireNameSerializer<>(EventType.class, EventType::wireName))
          .addSerializer(Priority.class, new WireNameSerializer<>(Priority.class, Priority::wireName))
          .addSerializer(QuestionKind.class, new WireNameSerializer<>(QuestionKind.class, QuestionKind::wireName))
          .addSerializer(Decision.Action.class, new WireNameSerializer<>(Decision.Action.class, Decision.Action::wireName)))
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
      // Records written by a newer broker version stay readable by an older replica during an upgrade.
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      // A body is one JSON value: anything after it is a client's mistake, not something to ignore.
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  static {
    // What every surface shows leaves out what only the log keeps (a question's history).
    MAPPER.setConfig(MAPPER.getSerializationConfig().withView(Shown.class));
  }

  /** How the event log writes: everything, including what surfaces do not show. */
  public static final ObjectWriter LOG_WRITER = MAPPER.writerWithView(Kept.class);

  /**
   * How the event log reads its own records back: without the duplicate-key check that guards bodies from outside
   * (the log holds only what {@link #LOG_WRITER} wrote, and the check was a third of a record's decoding at replay).
   */
  public static ObjectReader logReader(Class<?> type) {
    // ObjectReader.without(STRICT_DUPLICATE_DETECTION) leaves the parser's duplicate detector in place: the
    // feature is decided when the factory creates the parser, so the log reads through a factory without it.
    return MAPPER.readerFor(type).with(LOG_RECORDS);
  }

  private static final JsonFactory LOG_RECORDS = MAPPER.getFactory().copy()
      .disable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  /** The JSON view every surface writes with: fields without a view, and those marked shown. */
  public static final class Shown {
    private Shown() {
    }
  }

  /** The JSON view of fields that only the log keeps; the API shows them through their own resources. */
  public static final class Kept {
    private Kept() {
    }
  }

  private QuestionJson() {
  }
}
