package ark.broker.http;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;

/**
 * The {@code Content-Encoding}s Ark's routes inflate, as upstream's body parser does: gzip and deflate (zlib), or
 * none. Inflating stops as soon as the body passes the limit: a few kilobytes that would inflate to gigabytes take no
 * more memory than the limit.
 */
enum ContentEncoding {
  IDENTITY, GZIP, DEFLATE;

  /** The encoding a header names; one not accepted (br, several in a row) gets 415. */
  static ContentEncoding of(String header) {
    String name = header == null ? "" : header.trim().toLowerCase(Locale.ROOT);
    return switch (name) {
      case "", "identity" -> IDENTITY;
      case "gzip", "x-gzip" -> GZIP;
      case "deflate" -> DEFLATE;
      default -> throw ArkBodyReader.unsupported("Content-Encoding " + header
          + " is not accepted: send gzip, deflate or none");
    };
  }

  /** The body inflated, at most {@code limit} bytes of it (413 beyond); one that does not inflate gets 400. */
  byte[] inflate(byte[] body, long limit) {
    if (this == IDENTITY) {
      return body;
    }
    try (InputStream in = this == GZIP ? new GZIPInputStream(new ByteArrayInputStream(body))
        : new InflaterInputStream(new ByteArrayInputStream(body))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(limit, Math.max(64, body.length * 4L)));
      byte[] chunk = new byte[16 * 1024];
      for (int read = in.read(chunk); read >= 0; read = in.read(chunk)) {
        if (out.size() + (long) read > limit) {
          throw new ArkProblem(413, "PAYLOAD_TOO_LARGE", "the request body inflates to more than " + limit + " bytes");
        }
        out.write(chunk, 0, read);
      }
      return out.toByteArray();
    } catch (IOException notInflatable) {
      throw ArkProblem.invalid("body: cannot be inflated as " + name().toLowerCase(Locale.ROOT) + ": "
          + notInflatable.getMessage());
    }
  }
}
