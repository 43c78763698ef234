package ark.broker.log;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Remembers every record a log delivers, as "position:payload" (a tombstone as "position:end of key"). */
final class RecordingSink implements EventLog.RecordSink<String> {
  final List<String> seen = Collections.synchronizedList(new ArrayList<>());

  @Override
  public String decode(long position, byte[] payload) {
    return position + ":" + new String(payload, StandardCharsets.UTF_8);
  }

  @Override
  public String decodeTombstone(long position, String key) {
    return position + ":end of " + key;
  }

  @Override
  public void apply(long position, String record) {
    seen.add(record);
  }
}
