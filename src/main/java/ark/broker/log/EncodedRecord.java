package ark.broker.log;

import java.util.Arrays;
import java.util.zip.CRC32C;

/** A record's bytes as a map key: equal when the bytes are, hashed with the CPU's CRC32C instruction. */
final class EncodedRecord {
  private final byte[] payload;
  private final int hash;

  EncodedRecord(byte[] payload) {
    this.payload = payload;
    CRC32C crc = new CRC32C();
    crc.update(payload, 0, payload.length);
    this.hash = (int) crc.getValue();
  }

  byte[] payload() {
    return payload;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof EncodedRecord that && hash == that.hash && Arrays.equals(payload, that.payload);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
