package ark.broker.bus;

/**
 * Whether every store has replayed its log and serves on the bus. The ports open while the stores still replay, and
 * a request to a store that does not serve yet finds no handler; so a room that serves clients is ready only once
 * this says so. Set once by whatever deploys the stores; read from any event loop.
 */
public final class StoresReplayed {
  private volatile boolean replayed;

  /** Every store serves from now on. */
  public void replayed() {
    replayed = true;
  }

  public boolean isReplayed() {
    return replayed;
  }
}
