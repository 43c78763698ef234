package ark.broker.http;

import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;

/**
 * JSON as Ark's routes read it from their callers: the domain's mapping, with nesting limited while it is parsed, so a
 * body of a million brackets is refused at the limit's depth instead of being built or recursed through.
 */
final class ArkJson {
  /** The domain mapping's parser features (duplicate keys refused), with the depth limited. */
  private final JsonFactory factory;
  private final int maxDepth;

  ArkJson(int maxDepth) {
    this.maxDepth = maxDepth;
    this.factory = QuestionJson.MAPPER.getFactory().rebuild()
        .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(maxDepth).build()).build();
  }

  /** A parser of {@code json}, for a caller that walks it token by token. */
  JsonParser parser(byte[] json) throws IOException {
    return factory.createParser(json);
  }

  /** The one JSON value of {@code json}, or null when there is none; too deep a one is a validation error. */
  JsonNode tree(byte[] json) throws IOException {
    try (JsonParser parser = parser(json)) {
      return QuestionJson.MAPPER.readTree(parser);
    } catch (StreamConstraintsException tooDeep) {
      throw tooDeep();
    }
  }

  ArkProblem tooDeep() {
    return ArkProblem.invalid("body: arrays and objects nest deeper than " + maxDepth + " levels");
  }

  /**
   * One JSON value as compact bytes, copied token by token without building it (every chunk of a stream comes
   * through here); null when the bytes are not exactly one JSON value, or nest too deep.
   */
  byte[] compactValue(byte[] json) {
    try (JsonParser parser = parser(json)) {
      if (parser.nextToken() == null) {
        return null;
      }
      ByteArrayBuilder compact = new ByteArrayBuilder(json.length);
      try (JsonGenerator generator = factory.createGenerator(compact)) {
        generator.copyCurrentStructure(parser);
      }
      return parser.nextToken() == null ? compact.toByteArray() : null;
    } catch (IOException notOneValue) {
      return null;
    }
  }
}
