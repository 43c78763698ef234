package ark.broker.auth;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * The networks Ark's in-cluster callers come from ({@code auth.clusterNetworks}, CIDR blocks): Ark's controller and
 * ark-api call the stores of Ark's broker without a token, as upstream's broker lets them, and a request from these
 * addresses that brings none acts as {@link #PRINCIPAL}. Only those stores accept it; every other route still asks
 * for a token. Keep the list to the pod networks, and let a NetworkPolicy decide which pods reach the broker.
 */
public final class ClusterNetworks {
  /** Who an in-cluster caller without a token is: a service, on the Ark broker routes only. */
  public static final Principal PRINCIPAL = new Principal(PrincipalKind.SERVICE, Principal.USERS + "system:cluster-network",
      List.of(), AuthMethod.NETWORK);

  private final List<Block> blocks;

  private record Block(byte[] network, int prefix) {
    boolean contains(byte[] address) {
      if (address.length != network.length) {
        return false;
      }
      int whole = prefix / 8;
      for (int i = 0; i < whole; i++) {
        if (address[i] != network[i]) {
          return false;
        }
      }
      int rest = prefix % 8;
      return rest == 0 || ((address[whole] ^ network[whole]) & (0xff << (8 - rest)) & 0xff) == 0;
    }
  }

  private ClusterNetworks(List<Block> blocks) {
    this.blocks = List.copyOf(blocks);
  }

  /** @param cidrs blocks such as {@code 10.0.0.0/8} or {@code fd00::/8}; an address alone is a block of one */
  public static ClusterNetworks of(List<String> cidrs) {
    return new ClusterNetworks(cidrs.stream().map(ClusterNetworks::block).toList());
  }

  public boolean isEmpty() {
    return blocks.isEmpty();
  }

  /** Whether {@code address} (an IP address as text, never a name to look up) lies in one of the networks. */
  public boolean contains(String address) {
    if (address == null || blocks.isEmpty() || !address.matches("[0-9a-fA-F.:]+")) {
      return false;
    }
    try {
      byte[] bytes = InetAddress.getByName(address).getAddress();
      return blocks.stream().anyMatch(block -> block.contains(bytes));
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static Block block(String cidr) {
    String text = cidr.trim();
    int slash = text.indexOf('/');
    String address = slash < 0 ? text : text.substring(0, slash);
    try {
      if (!address.matches("[0-9a-fA-F.:]+")) {
        throw new UnknownHostException(address);
      }
      byte[] network = InetAddress.getByName(address).getAddress();
      int prefix = slash < 0 ? network.length * 8 : Integer.parseInt(text.substring(slash + 1));
      if (prefix < 0 || prefix > network.length * 8) {
        throw new NumberFormatException("prefix " + prefix);
      }
      return new Block(network, prefix);
    } catch (UnknownHostException | NumberFormatException e) {
      throw new IllegalArgumentException("auth.clusterNetworks: '" + cidr + "' is not a network such as 10.0.0.0/8 or"
          + " fd00::/8", e);
    }
  }
}
