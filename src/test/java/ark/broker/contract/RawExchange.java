package ark.broker.contract;

import io.vertx.core.json.JsonObject;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One HTTP/1.1 request over a plain socket whose body the check writes piece by piece, as Ark's Go executor writes
 * its chunked NDJSON body from a pipe for as long as the Query runs, or a client writes a body the server refuses
 * before reading it all; then the answer, parsed.
 */
public final class RawExchange implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;
  private final boolean chunked;

  /** The answer: status (0 if none came), headers as text, body (de-chunked). */
  public record Answer(int status, String headers, String body) {
    public JsonObject json() {
      return new JsonObject(body);
    }

    public String header(String name) {
      for (String line : headers.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    }
  }

  private RawExchange(Socket socket, boolean chunked) throws IOException {
    this.socket = socket;
    this.out = socket.getOutputStream();
    this.chunked = chunked;
  }

  /** Starts a POST with {@code Transfer-Encoding: chunked}, as Go's http client sends a body read from a pipe. */
  public static RawExchange chunkedPost(URI base, String path, String contentType) throws IOException {
    RawExchange exchange = new RawExchange(connect(base), true);
    exchange.write("POST " + path + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
        + "\r\nUser-Agent: Go-http-client/1.1\r\nContent-Type: " + contentType
        + "\r\nTransfer-Encoding: chunked\r\nAccept-Encoding: gzip\r\n\r\n");
    return exchange;
  }

  /** Starts a POST announcing {@code length} bytes of {@code contentType}. */
  public static RawExchange sizedPost(URI base, String path, String contentType, long length) throws IOException {
    RawExchange exchange = new RawExchange(connect(base), false);
    exchange.write("POST " + path + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
        + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + length + "\r\n\r\n");
    return exchange;
  }

  private static Socket connect(URI base) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5000);
    socket.setTcpNoDelay(true);
    return socket;
  }

  /** One NDJSON line: {@code text} and its newline, sent at once as one piece of the body. */
  public void line(String text) throws IOException {
    piece(text + "\n");
  }

  /** {@code text} as one piece of the body (a chunk when chunked), sent at once. */
  public void piece(String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (chunked) {
      write(Integer.toHexString(bytes.length) + "\r\n");
      out.write(bytes);
      write("\r\n");
    } else {
      out.write(bytes);
    }
    out.flush();
  }

  /** Raw body bytes (for a sized body), ignoring a server that stopped reading them. */
  public void bytesQuietly(byte[] bytes) {
    try {
      out.write(bytes);
      out.flush();
    } catch (IOException refused) {
      // the server answered and closed before reading the rest: its answer is still to be read
    }
  }

  /** Ends a chunked body and reads the answer. */
  public Answer finish(Duration within) throws IOException {
    end();
    return answer(within);
  }

  /** Ends a chunked body without waiting for the answer, as Go's executor closes its pipe. */
  public void end() throws IOException {
    if (chunked) {
      write("0\r\n\r\n");
    }
  }

  /** Reads the answer as it is (status 0 if none came within the time). */
  public Answer answer(Duration within) throws IOException {
    long deadline = System.nanoTime() + within.toNanos();
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try {
      while (!isComplete(received.toString(StandardCharsets.ISO_8859_1))) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          break;
        }
        socket.setSoTimeout((int) left);
        int read = in.read(buffer);
        if (read < 0) {
          break;
        }
        received.write(buffer, 0, read);
      }
    } catch (SocketTimeoutException | java.net.SocketException stopped) {
      // what came so far is the answer
    }
    return parse(received.toString(StandardCharsets.ISO_8859_1));
  }

  /** Whether {@code text} (bytes as ISO-8859-1 characters) holds a whole answer. */
  private static boolean isComplete(String text) {
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    if (text.startsWith("HTTP/1.1 100")) {
      return isComplete(text.substring(end + 4));
    }
    String headers = text.substring(0, end).toLowerCase(Locale.ROOT);
    String body = text.substring(end + 4);
    int length = headers.indexOf("content-length:");
    if (length >= 0) {
      int lineEnd = headers.indexOf("\r\n", length);
      long expected = Long.parseLong(headers.substring(length + 15, lineEnd < 0 ? headers.length() : lineEnd).trim());
      return body.length() >= expected;
    }
    return headers.contains("transfer-encoding: chunked") && body.contains("0\r\n\r\n");
  }

  private static Answer parse(String text) {
    while (text.startsWith("HTTP/1.1 100")) {
      text = text.substring(text.indexOf("\r\n\r\n") + 4);
    }
    int end = text.indexOf("\r\n\r\n");
    if (!text.startsWith("HTTP/1.") || end < 0) {
      return new Answer(0, "", new String(text.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
    }
    String headers = text.substring(0, end);
    String body = text.substring(end + 4);
    if (headers.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked")) {
      body = dechunk(body);
    }
    return new Answer(Integer.parseInt(text.substring(9, 12)), headers,
        new String(body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
  }

  private static String dechunk(String body) {
    StringBuilder plain = new StringBuilder();
    int at = 0;
    while (at < body.length()) {
      int lineEnd = body.indexOf("\r\n", at);
      if (lineEnd < 0) {
        break;
      }
      int size = Integer.parseInt(body.substring(at, lineEnd).split(";")[0].trim(), 16);
      if (size == 0) {
        break;
      }
      plain.append(body, lineEnd + 2, Math.min(body.length(), lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    return plain.toString();
  }

  private void write(String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
