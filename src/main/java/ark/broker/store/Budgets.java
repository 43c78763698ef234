package ark.broker.store;

import ark.broker.auth.Principal;
import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * The {@code budgets} section: the budget every principal has, and overrides for named agents, users and teams.
 * A principal's budget is, key by key, its own override's value; else the most generous value among the overrides
 * of its teams ({@code 0}, no limit, beats any number); else the default. Admins (the broker's own work, and
 * everyone while the broker runs open) have no budget.
 */
public final class Budgets {
  private static final Set<String> KEYS = Set.of("maxPendingQuestions", "createsPerMinute", "maxMcpSessions");
  private static final String[] PREFIXES = {"ark://agents/", "ark://users/", "ark://teams/"};

  private final Budget defaults;
  /** Each override as given: the keys it does not set are absent. */
  private final Map<String, JsonObject> overrides;

  private Budgets(Budget defaults, Map<String, JsonObject> overrides) {
    this.defaults = defaults;
    this.overrides = Map.copyOf(overrides);
  }

  /** @throws IllegalArgumentException for a negative limit, an override of something else than a principal or team, or an unknown key */
  public static Budgets from(JsonObject budgets) {
    Budget defaults = new Budget(limit(budgets, "maxPendingQuestions", "budgets"),
        limit(budgets, "createsPerMinute", "budgets"), limit(budgets, "maxMcpSessions", "budgets"));
    Map<String, JsonObject> overrides = new HashMap<>();
    JsonObject given = budgets.getJsonObject("overrides", new JsonObject());
    for (String name : given.fieldNames()) {
      String where = "budgets.overrides[\"" + name + "\"]";
      if (java.util.Arrays.stream(PREFIXES).noneMatch(prefix -> name.startsWith(prefix) && name.length() > prefix.length())) {
        throw new IllegalArgumentException(where + ": overrides are keyed by ark://agents/<name>, ark://users/<name> "
            + "or ark://teams/<name>");
      }
      if (!(given.getValue(name) instanceof JsonObject entry)) {
        throw new IllegalArgumentException(where + " must be an object with any of " + KEYS);
      }
      for (String key : entry.fieldNames()) {
        if (!KEYS.contains(key)) {
          throw new IllegalArgumentException(where + " has an unknown key '" + key + "'; the keys are " + KEYS);
        }
        limit(entry, key, where);
      }
      overrides.put(name, entry.copy());
    }
    return new Budgets(defaults, overrides);
  }

  Budget of(Principal principal) {
    if (principal.isAdmin()) {
      return Budget.UNLIMITED;
    }
    return new Budget(
        resolve(principal, "maxPendingQuestions", Budget::maxPendingQuestions),
        resolve(principal, "createsPerMinute", Budget::createsPerMinute),
        resolve(principal, "maxMcpSessions", Budget::maxMcpSessions));
  }

  private int resolve(Principal principal, String key, ToIntFunction<Budget> fallback) {
    JsonObject own = overrides.get(principal.name());
    if (own != null && own.containsKey(key)) {
      return own.getInteger(key);
    }
    Integer mostGenerous = null;
    for (String team : principal.teams()) {
      JsonObject entry = overrides.get(team);
      if (entry != null && entry.containsKey(key)) {
        mostGenerous = mostGenerous == null ? entry.getInteger(key) : moreGenerous(mostGenerous, entry.getInteger(key));
      }
    }
    return mostGenerous != null ? mostGenerous : fallback.applyAsInt(defaults);
  }

  private static int moreGenerous(int one, int other) {
    return one == 0 || other == 0 ? 0 : Math.max(one, other);
  }

  private static int limit(JsonObject node, String key, String where) {
    Object value = node.getValue(key);
    if (!(value instanceof Number number) || number.doubleValue() != number.intValue() || number.intValue() < 0) {
      throw new IllegalArgumentException(where + "." + key + " must be a whole number, 0 or more (0: no limit), not "
          + value);
    }
    return number.intValue();
  }
}
