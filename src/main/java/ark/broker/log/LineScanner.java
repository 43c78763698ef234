package ark.broker.log;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/** Reads a file line by line as raw bytes, remembering where each line starts. */
final class LineScanner {
  private final InputStream in;
  private byte[] buffer = new byte[1 << 20];
  private int start;
  private int end;
  private long consumed;
  private boolean eof;

  LineScanner(InputStream in) {
    this.in = in;
  }

  /** A line: bytes {@code [from, to)} of {@code bytes}, starting at {@code offset} in the file. */
  record Line(byte[] bytes, int from, int to, long offset, boolean complete) {
  }

  /** The next line, incomplete if the file ends without a line break; null at the end of the file. */
  Line next() throws IOException {
    while (true) {
      for (int i = start; i < end; i++) {
        if (buffer[i] == '\n') {
          Line line = new Line(buffer, start, i, consumed, true);
          consumed += i + 1 - start;
          start = i + 1;
          return line;
        }
      }
      if (eof) {
        if (start == end) {
          return null;
        }
        Line partial = new Line(buffer, start, end, consumed, false);
        consumed += end - start;
        start = end;
        return partial;
      }
      fill();
    }
  }

  private void fill() throws IOException {
    if (start > 0) {
      System.arraycopy(buffer, start, buffer, 0, end - start);
      end -= start;
      start = 0;
    }
    if (end == buffer.length) {
      buffer = Arrays.copyOf(buffer, buffer.length * 2);
    }
    int read = in.read(buffer, end, buffer.length - end);
    if (read < 0) {
      eof = true;
    } else {
      end += read;
    }
  }
}
