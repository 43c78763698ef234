package ark.broker.log;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Remembers every record a log delivers, as "position:payload" (a tombstone as "position:end of key").
 * A payload containing "undecodable" fails to decode and one containing "unappliable" fails to apply.
 */
final class RecordingSink implements EventLog.RecordSink<String> {
  final List<String> seen = Collections.synchronizedList(new ArrayList<>());

  @Override
  public String decode(long position, String key, byte[] payload) {
    String text = new String(payload, StandardCharsets.UTF_8);
    if (text.contains("undecodable")) {
      throw new IllegalArgumentException("cannot decode " + text);
    }
    return position + ":" + text;
  }

  @Override
  public String decodeTombstone(long position, String key) {
    return position + ":end of " + key;
  }

  @Override
  public void apply(long position, String record) {
    if (record.contains("unappliable")) {
      throw new IllegalStateException("cannot apply " + record);
    }
    seen.add(record);
  }
}
