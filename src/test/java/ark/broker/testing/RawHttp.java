package ark.broker.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * Sends bytes as they are over a plain socket, for requests no HTTP client would send (no Host header,
 * broken chunks, broken percent-encoding), and reads what comes back until the server closes.
 */
public final class RawHttp {
  private RawHttp() {
  }

  /** What came back: the status (0 when nothing did) and the whole text. */
  public record Answer(int status, String text) {
    public String body() {
      int split = text.indexOf("\r\n\r\n");
      return split < 0 ? "" : text.substring(split + 4);
    }
  }

  public static Answer send(URI server, String request) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(server.getHost(), server.getPort()), 5000);
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[8192];
      try {
        for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
          received.write(buffer, 0, read);
        }
      } catch (SocketTimeoutException | java.net.SocketException stopped) {
        // What arrived before the server stopped answering is the answer.
      }
      String text = received.toString(StandardCharsets.ISO_8859_1);
      int status = text.startsWith("HTTP/1.1 ") && text.length() >= 12 ? Integer.parseInt(text.substring(9, 12)) : 0;
      return new Answer(status, text);
    }
  }
}
