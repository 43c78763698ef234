package ark.broker.channel;

import java.util.List;

/**
 * A person acting in a channel: their account there and who the {@link Directory} says they are.
 *
 * @param account  the channel and the account as the channel names it, {@code slack:U012ABCDEF} or
 *     {@code github:johndoe}; the question's history keeps it as the user agent of what they did
 * @param identity their {@code ark://users/...} name
 * @param teams    the {@code ark://teams/...} whose directory entry lists them
 */
public record ChannelUser(String account, String identity, List<String> teams) {
  public ChannelUser {
    teams = List.copyOf(teams);
  }
}
