package ark.broker.log;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * How one record is written: a line {@code <crc32c as 8 hex digits> <position> <payload>\n}. The
 * checksum covers position and payload, so a torn or flipped record is recognised on replay. Lines
 * stay readable with ordinary tools ({@code tail}, {@code grep}).
 */
final class RecordLine {
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private RecordLine() {
  }

  /** Appends the line for one record to {@code out}. */
  static void encode(long position, byte[] payload, GrowableBuffer out) {
    for (byte b : payload) {
      if (b == '\n') {
        throw new IllegalArgumentException("a record payload must not contain a line break");
      }
    }
    byte[] positionText = Long.toString(position).getBytes(StandardCharsets.US_ASCII);
    CRC32C crc = new CRC32C();
    crc.update(positionText);
    crc.update(' ');
    crc.update(payload);
    long sum = crc.getValue();
    for (int shift = 28; shift >= 0; shift -= 4) {
      out.put(HEX[(int) (sum >>> shift) & 0xf]);
    }
    out.put((byte) ' ');
    out.put(positionText);
    out.put((byte) ' ');
    out.put(payload);
    out.put((byte) '\n');
  }

  /**
   * Decodes one line (without its line break), or returns null if it is not a whole, intact record.
   */
  static EventLog.LogRecord decode(byte[] line, int from, int to) {
    if (to - from < 12 || line[from + 8] != ' ') {
      return null;
    }
    long expected = 0;
    for (int i = from; i < from + 8; i++) {
      int digit = Character.digit(line[i], 16);
      if (digit < 0) {
        return null;
      }
      expected = (expected << 4) | digit;
    }
    int positionStart = from + 9;
    int space = positionStart;
    long position = 0;
    while (space < to && line[space] != ' ') {
      int digit = line[space] - '0';
      if (digit < 0 || digit > 9 || space - positionStart > 18) {
        return null;
      }
      position = position * 10 + digit;
      space++;
    }
    if (space == positionStart || space == to) {
      return null;
    }
    CRC32C crc = new CRC32C();
    crc.update(line, positionStart, to - positionStart);
    if (crc.getValue() != expected) {
      return null;
    }
    byte[] payload = new byte[to - space - 1];
    System.arraycopy(line, space + 1, payload, 0, payload.length);
    return new EventLog.LogRecord(position, null, payload);
  }
}
