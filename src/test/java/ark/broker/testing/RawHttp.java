package ark.broker.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * Sends bytes as they are over a plain socket, for requests no HTTP client would send (no Host header,
 * broken chunks, broken percent-encoding), and reads what comes back: until the server closes, or, on a
 * connection the test keeps open, one whole answer at a time.
 */
public final class RawHttp {
  private RawHttp() {
  }

  /**
   * What came back: the status (0 when nothing did), the whole text, and whether the answer was complete
   * (the server closed the connection, or it is an event stream, which counts as answered at its headers,
   * unless it was read to its end).
   */
  public record Answer(int status, String text, boolean complete) {
    public String body() {
      int split = text.indexOf("\r\n\r\n");
      return split < 0 ? "" : text.substring(split + 4);
    }
  }

  public static Answer send(URI server, String request) throws IOException {
    return send(server, request, Duration.ofSeconds(10));
  }

  /** Waits at most {@code timeout} for the server to close; an event stream is answered at its headers. */
  public static Answer send(URI server, String request, Duration timeout) throws IOException {
    return exchange(server, request, timeout, false);
  }

  /** The same, but an event stream too must end within {@code timeout} to be complete. */
  public static Answer sendUntilEnd(URI server, String request, Duration timeout) throws IOException {
    return exchange(server, request, timeout, true);
  }

  /**
   * Sends {@code request} on a connection that stays open and reads its whole answer (headers and a
   * Content-Length body), for tests of what a connection may hold; returns the headers.
   */
  public static String exchange(Socket socket, String request) throws IOException {
    socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
    InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int read = in.read();
      if (read < 0) {
        throw new IOException("closed after: " + head);
      }
      head.append((char) read);
    }
    String lower = head.toString().toLowerCase(Locale.ROOT);
    int at = lower.indexOf("content-length:");
    int length = at < 0 ? 0 : Integer.parseInt(lower.substring(at + 15, lower.indexOf("\r\n", at)).trim());
    in.readNBytes(length);
    return head.toString();
  }

  private static Answer exchange(URI server, String request, Duration timeout, boolean streamsToo) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(server.getHost(), server.getPort()), 5000);
      long deadline = System.nanoTime() + timeout.toNanos();
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      boolean complete = false;
      try {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[8192];
        while (!complete) {
          long left = (deadline - System.nanoTime()) / 1_000_000;
          if (left <= 0) {
            break;
          }
          socket.setSoTimeout((int) Math.max(1, left));
          int read = in.read(buffer);
          if (read < 0) {
            complete = true;
          } else {
            received.write(buffer, 0, read);
            complete = !streamsToo && isEventStream(received.toString(StandardCharsets.ISO_8859_1));
          }
        }
      } catch (SocketTimeoutException timedOut) {
        complete = false;
      } catch (SocketException reset) {
        // The server cut the connection: what arrived before is the answer.
        complete = true;
      }
      String text = received.toString(StandardCharsets.ISO_8859_1);
      int status = text.startsWith("HTTP/1.") && text.length() >= 12 ? Integer.parseInt(text.substring(9, 12)) : 0;
      return new Answer(status, text, complete);
    }
  }

  private static boolean isEventStream(String text) {
    int headersEnd = text.indexOf("\r\n\r\n");
    return headersEnd >= 0 && text.substring(0, headersEnd).toLowerCase(Locale.ROOT).contains("content-type: text/event-stream");
  }
}
