package ark.broker.store;

import ark.broker.auth.Principal;
import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * The {@code budgets} section: the budget every principal has, and overrides for named agents, users and teams.
 * A principal's budget is, key by key, its own override's value; else the most generous value among the overrides
 * of its teams ({@code 0}, no limit, beats any number); else the default. Admins (the broker's own work, and
 * everyone while the broker runs open) have no budget.
 *
 * <p>A service acting for agents spends each agent's budget, and also its own {@code actingFor} budget, its total
 * over every agent it acts for, resolved the same way from {@code actingFor} in the defaults and the overrides: a
 * credential that may name any agent of a namespace cannot multiply its budget by naming new ones.
 */
public final class Budgets {
  private static final Set<String> KEYS = Set.of("maxPendingQuestions", "createsPerMinute", "maxMcpSessions");
  private static final String ACTING_FOR = "actingFor";
  private static final Set<String> ACTING_FOR_KEYS = Set.of("maxPendingQuestions", "createsPerMinute");
  private static final String[] PREFIXES = {"ark://agents/", "ark://users/", "ark://teams/"};

  private final Budget defaults;
  private final Budget actingForDefaults;
  /** Each override as given: the keys it does not set are absent. */
  private final Map<String, JsonObject> overrides;

  private Budgets(Budget defaults, Budget actingForDefaults, Map<String, JsonObject> overrides) {
    this.defaults = defaults;
    this.actingForDefaults = actingForDefaults;
    this.overrides = Map.copyOf(overrides);
  }

  /**
   * @throws IllegalArgumentException for a negative limit, an override of something else than a principal or team,
   *     or an unknown key
   */
  public static Budgets from(JsonObject budgets) {
    Budget defaults = new Budget(limit(budgets, "maxPendingQuestions", "budgets"),
        limit(budgets, "createsPerMinute", "budgets"), limit(budgets, "maxMcpSessions", "budgets"));
    // A section built without it (a test's) gives a service's total the budget of one principal.
    JsonObject actingFor = budgets.getJsonObject(ACTING_FOR, new JsonObject()
        .put("maxPendingQuestions", defaults.maxPendingQuestions()).put("createsPerMinute", defaults.createsPerMinute()));
    requireKeys(actingFor, ACTING_FOR_KEYS, "budgets." + ACTING_FOR);
    Budget actingForDefaults = new Budget(limit(actingFor, "maxPendingQuestions", "budgets." + ACTING_FOR),
        limit(actingFor, "createsPerMinute", "budgets." + ACTING_FOR), 0);
    Map<String, JsonObject> overrides = new HashMap<>();
    JsonObject given = budgets.getJsonObject("overrides", new JsonObject());
    for (String name : given.fieldNames()) {
      String where = "budgets.overrides[\"" + name + "\"]";
      if (java.util.Arrays.stream(PREFIXES).noneMatch(prefix -> name.startsWith(prefix) && name.length() > prefix.length())) {
        throw new IllegalArgumentException(where + ": overrides are keyed by ark://agents/<name>, ark://users/<name> "
            + "or ark://teams/<name>");
      }
      if (!(given.getValue(name) instanceof JsonObject entry)) {
        throw new IllegalArgumentException(where + " must be an object with any of " + KEYS + " and " + ACTING_FOR);
      }
      for (String key : entry.fieldNames()) {
        if (key.equals(ACTING_FOR)) {
          if (!(entry.getValue(key) instanceof JsonObject section)) {
            throw new IllegalArgumentException(where + "." + ACTING_FOR + " must be an object with any of " + ACTING_FOR_KEYS);
          }
          requireKeys(section, ACTING_FOR_KEYS, where + "." + ACTING_FOR);
          section.fieldNames().forEach(limit -> limit(section, limit, where + "." + ACTING_FOR));
        } else if (!KEYS.contains(key)) {
          throw new IllegalArgumentException(where + " has an unknown key '" + key + "'; the keys are " + KEYS
              + " and " + ACTING_FOR);
        } else {
          limit(entry, key, where);
        }
      }
      overrides.put(name, entry.copy());
    }
    return new Budgets(defaults, actingForDefaults, overrides);
  }

  Budget of(Principal principal) {
    if (principal.isAdmin()) {
      return Budget.UNLIMITED;
    }
    Function<JsonObject, JsonObject> own = entry -> entry;
    return new Budget(
        resolve(principal, own, "maxPendingQuestions", defaults::maxPendingQuestions),
        resolve(principal, own, "createsPerMinute", defaults::createsPerMinute),
        resolve(principal, own, "maxMcpSessions", defaults::maxMcpSessions));
  }

  /** What {@code service} may ask for all the agents it acts for together (no MCP sessions: those are its own). */
  Budget actingFor(Principal service) {
    if (service.isAdmin()) {
      return Budget.UNLIMITED;
    }
    Function<JsonObject, JsonObject> section = entry -> entry.getJsonObject(ACTING_FOR);
    return new Budget(
        resolve(service, section, "maxPendingQuestions", actingForDefaults::maxPendingQuestions),
        resolve(service, section, "createsPerMinute", actingForDefaults::createsPerMinute), 0);
  }

  /**
   * @param section where in an override entry the key is (the entry itself, or its {@code actingFor}); null if absent
   */
  private int resolve(Principal principal, Function<JsonObject, JsonObject> section, String key,
                      IntSupplier fallback) {
    JsonObject own = sectionOf(principal.name(), section);
    if (own != null && own.containsKey(key)) {
      return own.getInteger(key);
    }
    Integer mostGenerous = null;
    for (String team : principal.teams()) {
      JsonObject entry = sectionOf(team, section);
      if (entry != null && entry.containsKey(key)) {
        mostGenerous = mostGenerous == null ? entry.getInteger(key) : moreGenerous(mostGenerous, entry.getInteger(key));
      }
    }
    return mostGenerous != null ? mostGenerous : fallback.getAsInt();
  }

  private JsonObject sectionOf(String name, Function<JsonObject, JsonObject> section) {
    JsonObject entry = overrides.get(name);
    return entry == null ? null : section.apply(entry);
  }

  private static void requireKeys(JsonObject section, Set<String> keys, String where) {
    for (String key : section.fieldNames()) {
      if (!keys.contains(key)) {
        throw new IllegalArgumentException(where + " has an unknown key '" + key + "'; the keys are " + keys);
      }
    }
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
