package ark.broker.bus;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;

/** Passes immutable message objects by reference; the broker's event bus never leaves the process. */
final class LocalCodec<T> implements MessageCodec<T, T> {
  private final String name;

  LocalCodec(Class<T> type) {
    this.name = "local:" + type.getName();
  }

  @Override
  public void encodeToWire(Buffer buffer, T message) {
    throw new UnsupportedOperationException(name + " is for the local event bus only");
  }

  @Override
  public T decodeFromWire(int position, Buffer buffer) {
    throw new UnsupportedOperationException(name + " is for the local event bus only");
  }

  @Override
  public T transform(T message) {
    return message;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }
}
