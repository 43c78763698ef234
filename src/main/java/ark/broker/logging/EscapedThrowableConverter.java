package ark.broker.logging;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;

import java.util.Arrays;

/**
 * {@code %escapedEx} in a logback pattern: a stack trace as {@code %ex} writes it, with each exception's message
 * {@link LogText#escaped escaped}, since a message may quote what a client sent. Frames hold only class and method
 * names, so the lines of a stack trace are the trace's own.
 */
public final class EscapedThrowableConverter extends ThrowableProxyConverter {
  @Override
  protected String throwableProxyToString(IThrowableProxy thrown) {
    return super.throwableProxyToString(new Escaped(thrown));
  }

  /** The same throwable, its message and those of its causes and suppressed ones escaped. */
  private record Escaped(IThrowableProxy thrown) implements IThrowableProxy {
    @Override
    public String getMessage() {
      return LogText.escaped(thrown.getMessage());
    }

    @Override
    public String getClassName() {
      return thrown.getClassName();
    }

    @Override
    public StackTraceElementProxy[] getStackTraceElementProxyArray() {
      return thrown.getStackTraceElementProxyArray();
    }

    @Override
    public int getCommonFrames() {
      return thrown.getCommonFrames();
    }

    @Override
    public IThrowableProxy getCause() {
      return thrown.getCause() == null ? null : new Escaped(thrown.getCause());
    }

    @Override
    public IThrowableProxy[] getSuppressed() {
      return thrown.getSuppressed() == null ? null
          : Arrays.stream(thrown.getSuppressed()).map(Escaped::new).toArray(IThrowableProxy[]::new);
    }

    @Override
    public boolean isCyclic() {
      return thrown.isCyclic();
    }
  }
}
