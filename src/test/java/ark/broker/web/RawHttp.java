package ark.broker.web;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** One HTTP/1.1 exchange over a raw socket that stays open, for tests of what a connection may hold. */
final class RawHttp {
  private RawHttp() {
  }

  /** Sends {@code request} and reads its whole answer (headers and Content-Length body); returns the headers. */
  static String exchange(Socket socket, String request) throws IOException {
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
    String lower = head.toString().toLowerCase();
    int at = lower.indexOf("content-length:");
    int length = at < 0 ? 0 : Integer.parseInt(lower.substring(at + 15, lower.indexOf("\r\n", at)).trim());
    in.readNBytes(length);
    return head.toString();
  }
}
