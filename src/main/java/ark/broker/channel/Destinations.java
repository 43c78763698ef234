package ark.broker.channel;

import ark.broker.question.Delivery;
import ark.broker.question.Question;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Where a question goes: the channels it names plus those routing rules add, as the enabled channels resolve them. */
final class Destinations {
  private final List<Channel> channels;
  private final List<RoutingRule> rules;

  Destinations(List<Channel> channels, List<RoutingRule> rules) {
    this.channels = List.copyOf(channels);
    this.rules = List.copyOf(rules);
  }

  /** One destination per place; when two names lead to the same place, the first one names it. */
  List<Destination> of(Question question) {
    Map<String, Destination> byKey = new LinkedHashMap<>();
    for (String name : names(question)) {
      for (Destination destination : resolve(name, question)) {
        byKey.putIfAbsent(destination.key(), destination);
      }
    }
    return List.copyOf(byKey.values());
  }

  /** Names that no enabled channel serves (or that reach none of its recipients), so an operator can see why a question was not delivered. */
  List<String> unserved(Question question) {
    List<String> unserved = new ArrayList<>();
    for (String name : names(question)) {
      if (resolve(name, question).isEmpty()) {
        unserved.add(name);
      }
    }
    return unserved;
  }

  /** The record of the question's delivery to this destination, or null. */
  static Delivery recordOf(Question question, Destination destination) {
    for (Delivery delivery : question.deliveries()) {
      if (delivery.channel().equals(destination.name())) {
        return delivery;
      }
    }
    return null;
  }

  private Set<String> names(Question question) {
    Set<String> names = new LinkedHashSet<>(question.asked().channels());
    for (RoutingRule rule : rules) {
      if (rule.matches(question)) {
        names.addAll(rule.channels());
      }
    }
    return names;
  }

  private List<Destination> resolve(String name, Question question) {
    for (Channel channel : channels) {
      List<Destination> destinations = channel.resolve(name, question);
      if (!destinations.isEmpty()) {
        return destinations;
      }
    }
    return List.of();
  }
}
