package ark.broker.question;

/** Size limits on what askers and answerers may send, so one request cannot bloat every replica's view. */
final class Limits {
  static final int TEXT = 16_384;
  static final int SHORT_TEXT = 256;
  static final int OPTIONS = 32;
  static final int CHANNELS = 16;
  static final int HISTORY = 100;
  static final long MAX_TTL_SECONDS = 366L * 24 * 3600;

  private Limits() {
  }
}
