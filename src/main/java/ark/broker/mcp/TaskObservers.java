package ark.broker.mcp;

import ark.broker.mcp.protocol.McpServer;
import ark.broker.question.Question;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which sessions on this replica asked for or looked at which task, so they get
 * {@code notifications/tasks/status} when it changes. Best effort, as the spec allows: clients poll
 * {@code tasks/get} and must not rely on these.
 */
final class TaskObservers {
  private final Map<String, Set<String>> sessionsByTask = new HashMap<>();
  private final long pollIntervalMillis;
  private McpServer server;

  TaskObservers(long pollIntervalMillis) {
    this.pollIntervalMillis = pollIntervalMillis;
  }

  void attach(McpServer mcp) {
    this.server = mcp;
  }

  void observe(String taskId, String sessionId) {
    sessionsByTask.computeIfAbsent(taskId, id -> new LinkedHashSet<>()).add(sessionId);
  }

  void changed(Question question) {
    Set<String> sessions = question.status().isFinal()
        ? sessionsByTask.remove(question.id()) : sessionsByTask.get(question.id());
    if (sessions != null) {
      for (String session : sessions) {
        server.notifySession(session, "notifications/tasks/status", QuestionResults.task(question, pollIntervalMillis));
      }
    }
  }
}
