package ark.broker.log;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;

import java.io.IOException;
import java.io.UncheckedIOException;

/** How a store's records become a log's payloads and back. */
public interface RecordCodec<E> {
  E decode(byte[] payload) throws IOException;

  byte[] encode(E record);

  /** Records as JSON, read and written with the given Jackson reader and writer. */
  static <E> RecordCodec<E> json(ObjectReader reader, ObjectWriter writer) {
    return new RecordCodec<>() {
      @Override
      public E decode(byte[] payload) throws IOException {
        return reader.readValue(payload);
      }

      @Override
      public byte[] encode(E record) {
        try {
          return writer.writeValueAsBytes(record);
        } catch (JsonProcessingException e) {
          throw new UncheckedIOException(e);
        }
      }
    };
  }
}
