package ark.broker.bus;

/**
 * An item one of Ark's broker stores published as it kept it: its sequence (its position in the store's log, which
 * readers resume from) and the item as they get it.
 */
public interface SequencedItem {
  long sequence();

  byte[] item();
}
