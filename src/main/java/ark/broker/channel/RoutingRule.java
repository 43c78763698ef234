package ark.broker.channel;

import ark.broker.question.Question;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;

/**
 * Sends questions to channels they do not name themselves: every question that matches all the fields
 * given (a missing field matches anything) also goes to {@code channels}. A rule with no fields at all
 * sends every question there.
 */
record RoutingRule(String recipient, String sender, String priority, List<String> channels) {

  static RoutingRule from(JsonObject rule, String where) {
    List<String> channels = new ArrayList<>();
    JsonArray names = rule.getJsonArray("channels", new JsonArray());
    names.forEach(name -> channels.add(String.valueOf(name)));
    if (channels.isEmpty()) {
      throw new IllegalArgumentException(where + ".channels must name at least one channel");
    }
    return new RoutingRule(rule.getString("recipient"), rule.getString("sender"), rule.getString("priority"),
        List.copyOf(channels));
  }

  boolean matches(Question question) {
    return (recipient == null || recipient.equals(question.asked().recipient()))
        && (sender == null || sender.equals(question.asked().sender()))
        && (priority == null || priority.equals(question.asked().priority().wireName()));
  }
}
