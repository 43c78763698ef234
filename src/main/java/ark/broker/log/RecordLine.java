package ark.broker.log;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.JsonStringEncoder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * How one record is written: a line {@code <crc32c as 8 hex digits> <position> <key> <payload>\n}, the key a JSON
 * string. The checksum covers everything after it, so a torn or flipped record is recognised on replay. Lines at
 * position 0 say something about their file and have no key: the header that names the file's
 * {@link FormatVersion format} first, a snapshot's trailer last. Files of format 1 have no header and no keys in
 * their lines. Lines stay readable with ordinary tools ({@code tail}, {@code grep}).
 */
final class RecordLine {
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final JsonFactory JSON = new JsonFactory();

  private RecordLine() {
  }

  /** Appends the line for one record, keyed unless it is a line about the file (position 0), to {@code out}. */
  static void encode(long position, String key, byte[] payload, GrowableBuffer out) {
    for (byte b : payload) {
      if (b == '\n') {
        throw new IllegalArgumentException("a record payload must not contain a line break");
      }
    }
    byte[] positionText = Long.toString(position).getBytes(StandardCharsets.US_ASCII);
    byte[] keyText = position == 0 ? null : quoted(key);
    CRC32C crc = new CRC32C();
    crc.update(positionText);
    crc.update(' ');
    if (keyText != null) {
      crc.update(keyText);
      crc.update(' ');
    }
    crc.update(payload);
    long sum = crc.getValue();
    for (int shift = 28; shift >= 0; shift -= 4) {
      out.put(HEX[(int) (sum >>> shift) & 0xf]);
    }
    out.put((byte) ' ');
    out.put(positionText);
    out.put((byte) ' ');
    if (keyText != null) {
      out.put(keyText);
      out.put((byte) ' ');
    }
    out.put(payload);
    out.put((byte) '\n');
  }

  /** The header line of a file in the current format. */
  static void encodeHeader(GrowableBuffer out) {
    encode(0, null, FormatVersion.header(), out);
  }

  private static byte[] quoted(String key) {
    byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(key == null ? "" : key);
    byte[] quoted = new byte[escaped.length + 2];
    quoted[0] = '"';
    System.arraycopy(escaped, 0, quoted, 1, escaped.length);
    quoted[quoted.length - 1] = '"';
    return quoted;
  }

  /**
   * Decodes one line (without its line break) of a file of {@code format}, or returns null if it is not a whole,
   * intact record. Lines at position 0 have no key in any format.
   */
  static EventLog.LogRecord decode(byte[] line, int from, int to, int format) {
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
    String key = null;
    int payloadStart = space + 1;
    if (position != 0 && format >= 2) {
      int keyEnd = endOfString(line, payloadStart, to);
      if (keyEnd < 0 || keyEnd + 1 >= to || line[keyEnd + 1] != ' ') {
        return null;
      }
      key = unquoted(line, payloadStart, keyEnd + 1);
      payloadStart = keyEnd + 2;
    }
    byte[] payload = new byte[to - payloadStart];
    System.arraycopy(line, payloadStart, payload, 0, payload.length);
    return new EventLog.LogRecord(position, key, payload);
  }

  /** The index of the quote that ends the JSON string starting at {@code from}, or -1. */
  private static int endOfString(byte[] line, int from, int to) {
    if (from >= to || line[from] != '"') {
      return -1;
    }
    for (int i = from + 1; i < to; i++) {
      if (line[i] == '\\') {
        i++;
      } else if (line[i] == '"') {
        return i;
      }
    }
    return -1;
  }

  /** The JSON string in {@code [from, to)}, quotes included. */
  private static String unquoted(byte[] line, int from, int to) {
    boolean escaped = false;
    for (int i = from + 1; i < to - 1 && !escaped; i++) {
      escaped = line[i] == '\\';
    }
    if (!escaped) {
      return new String(line, from + 1, to - from - 2, StandardCharsets.UTF_8);
    }
    try (JsonParser parser = JSON.createParser(line, from, to - from)) {
      parser.nextToken();
      return parser.getText();
    } catch (IOException e) {
      throw new IllegalStateException("a record's key is not a JSON string", e);
    }
  }
}
