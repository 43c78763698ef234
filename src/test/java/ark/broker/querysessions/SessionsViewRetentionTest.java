package ark.broker.querysessions;

import ark.broker.bus.QueryActivity;
import ark.broker.bus.SessionFact;
import ark.broker.log.RetainingStore;
import ark.broker.log.RetentionCheck;
import ark.broker.log.RetentionModel;
import ark.broker.log.RetentionScenario;
import ark.broker.log.StoreMeters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonObject;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;

/**
 * The sessions projection keeps the sessions and Queries of what the plain model of retention keeps of their facts,
 * whatever activity is reported, taken out of every session ({@code DELETE /sessions/queries/{query}}), purged
 * ({@code DELETE /sessions}), aged out, pushed out by bytes and replayed, on
 * both replicas. The facts are the events log's, which the projection does not compact. On a failure jqwik prints the
 * seed: {@code @Property(seed = "...")} plays it again.
 */
class SessionsViewRetentionTest {
  @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
  void sessionsKeepWhatTheModelKeeps(@ForAll("scenarios") RetentionScenario scenario) {
    RetentionCheck.run(new Sessions(), scenario);
  }

  @Provide
  Arbitrary<RetentionScenario> scenarios() {
    return RetentionScenario.any(false, true);
  }

  /** Keys are sessions, groups the Queries of a session; a fact's sequence is its position. */
  private static final class Sessions implements RetainingStore<SessionFact, SessionsView> {
    @Override
    public SessionsView view(long maxBytes, long maxAgeMillis) {
      return new SessionsView(new QuerySessionSettings(maxBytes, maxAgeMillis),
          new StoreMeters(new SimpleMeterRegistry(), "sessions", "", unused -> 0, unused -> 0));
    }

    @Override
    public void apply(SessionsView view, long position, SessionFact fact, long now) {
      SessionFact positioned;
      if (fact instanceof SessionFact.Activity activity) {
        positioned = new SessionFact.Activity(position, activity.loggedAt(), activity.activity());
      } else if (fact instanceof SessionFact.QueryForgotten forgotten) {
        positioned = new SessionFact.QueryForgotten(position, forgotten.loggedAt(), forgotten.sessionId(),
            forgotten.queryName());
      } else {
        positioned = new SessionFact.Purged(position, fact.loggedAt());
      }
      view.apply(positioned, now);
    }

    @Override
    public void trim(SessionsView view, long now) {
      view.trim(now);
    }

    @Override
    public long floor(SessionsView view) {
      return 0;
    }

    @Override
    public long bytes(SessionsView view) {
      return view.bytes();
    }

    @Override
    public SessionFact readBack(SessionFact fact) {
      return fact;
    }

    @Override
    public SessionFact written(String label, String key, String group, int padding, long at, long expiresAt) {
      return new SessionFact.Activity(0, at, new QueryActivity(key, group, "QueryExecutionStart", at, null, null, null,
          label, null, "x".repeat(padding), null));
    }

    @Override
    public RetentionModel.Item kept(long position, SessionFact written) {
      QueryActivity activity = ((SessionFact.Activity) written).activity();
      return new RetentionModel.Item(position, activity.agent(), activity.sessionId(), activity.queryName(),
          activity.weight(), written.loggedAt(), Long.MAX_VALUE);
    }

    @Override
    public SessionFact deletedGroup(String key, String group, long at) {
      return new SessionFact.QueryForgotten(0, at, key, group);
    }

    @Override
    public SessionFact purged(long at) {
      return new SessionFact.Purged(0, at);
    }

    /** Of one session, the names of its Queries; of all, each session's Queries and how many sessions there are. */
    @Override
    public Shown shown(SessionsView view, String key) {
      if (key == null) {
        JsonObject sessions = json(joined(view.all())).getJsonObject("sessions");
        List<String> queries = sessions.fieldNames().stream().flatMap(id -> queries(sessions.getJsonObject(id))
            .map(query -> id + "/" + query)).sorted().toList();
        return new Shown(queries, view.size());
      }
      byte[] session = view.session(key);
      List<String> queries = session == null ? List.of() : queries(json(session)).sorted().toList();
      return new Shown(queries, queries.size());
    }

    @Override
    public Shown expected(List<RetentionModel.Item> live, String key) {
      if (key == null) {
        return new Shown(live.stream().map(item -> item.key() + "/" + item.group()).distinct().sorted().toList(),
            live.stream().map(RetentionModel.Item::key).distinct().count());
      }
      List<String> queries = live.stream().filter(item -> item.key().equals(key)).map(RetentionModel.Item::group)
          .distinct().sorted().toList();
      return new Shown(queries, queries.size());
    }

    private static Stream<String> queries(JsonObject session) {
      return session.getJsonObject("queries").fieldNames().stream();
    }

    private static byte[] joined(List<byte[]> pieces) {
      java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
      pieces.forEach(whole::writeBytes);
      return whole.toByteArray();
    }

    private static JsonObject json(byte[] rendered) {
      return new JsonObject(new String(rendered, StandardCharsets.UTF_8));
    }
  }
}
