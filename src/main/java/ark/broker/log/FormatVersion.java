package ark.broker.log;

import java.nio.charset.StandardCharsets;

/**
 * The format version of what a log holds: every file of the embedded log starts with a line that names it, every
 * Kafka record carries it in a header. A log written by an older version is read as that version wrote it; one
 * written by a newer version is refused, since this version cannot know what its records mean.
 *
 * <ul>
 *   <li>1: what brokers wrote before logs had a format version: files without a header, lines
 *   {@code <crc> <position> <payload>}; Kafka records without the header.</li>
 *   <li>2: a header line {@code <crc> 0 {"format":2}} first in every segment and snapshot, and each record's key in its
 *   line ({@code <crc> <position> <key as a JSON string> <payload>}), so a log can be exported to Kafka, which keys
 *   every record.</li>
 * </ul>
 */
final class FormatVersion {
  /** What this version writes, and the newest it reads. */
  static final int CURRENT = 2;
  /** Files without a header line, and Kafka records without the header, are of this format. */
  static final int UNMARKED = 1;
  /** The Kafka record header that carries the format, its value the number in ASCII. */
  static final String KAFKA_HEADER = "ark-broker-format";
  static final byte[] CURRENT_BYTES = Integer.toString(CURRENT).getBytes(StandardCharsets.US_ASCII);

  private static final String HEADER_START = "{\"format\":";

  private FormatVersion() {
  }

  /** The payload of a file's header line: {@code {"format":2}}. */
  static byte[] header() {
    return (HEADER_START + CURRENT + "}").getBytes(StandardCharsets.US_ASCII);
  }

  /** The format a header line's payload names, or -1 if the payload is no header. */
  static int ofHeader(byte[] payload) {
    String text = new String(payload, StandardCharsets.US_ASCII);
    if (!text.startsWith(HEADER_START) || !text.endsWith("}")) {
      return -1;
    }
    return parse(text.substring(HEADER_START.length(), text.length() - 1));
  }

  /** The format a Kafka header's value names, or -1 if it names none. */
  static int ofKafkaHeader(byte[] value) {
    return parse(new String(value, StandardCharsets.US_ASCII));
  }

  private static int parse(String number) {
    try {
      int format = Integer.parseInt(number.trim());
      return format >= 1 ? format : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Why {@code what} is refused: it was written in {@code format}, newer than this version reads (-1: a format it
   * cannot even name). Said so an operator knows what to do, rather than having it misread.
   */
  static String newer(String what, int format) {
    return what + " was written by a newer Ark Broker (" + (format > 0 ? "record format " + format
        : "a record format this version cannot name") + "); this version reads formats "
        + UNMARKED + " to " + CURRENT + " and refuses it rather than misread it. Run that newer version (or a later"
        + " one) on it, or restore a backup taken by this version";
  }
}
