package ark.broker.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;

import java.util.function.Function;

/**
 * Writes an enum as its wire name (what its {@code @JsonValue} method returns), computed and encoded once per
 * constant: Jackson would call that method reflectively for every value it writes, several times per question.
 */
final class WireNameSerializer<E extends Enum<E>> extends StdScalarSerializer<E> {
  private final SerializedString[] names;

  WireNameSerializer(Class<E> type, Function<E, String> wireName) {
    super(type);
    E[] constants = type.getEnumConstants();
    names = new SerializedString[constants.length];
    for (E constant : constants) {
      names[constant.ordinal()] = new SerializedString(wireName.apply(constant));
    }
  }

  @Override
  public void serialize(E value, JsonGenerator generator, SerializerProvider provider) throws java.io.IOException {
    generator.writeString(names[value.ordinal()]);
  }
}
