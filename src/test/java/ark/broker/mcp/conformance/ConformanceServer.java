package ark.broker.mcp.conformance;

import ark.broker.ConfigLoader;
import ark.broker.Main;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

/**
 * The broker plus the conformance fixtures, for {@code mcp-conformance.sh}: a fresh data directory,
 * MCP on the given port (0 picks one), REST on any free port. Runs until the process is stopped.
 * Usage: {@code ConformanceServer [mcp port]}
 */
public final class ConformanceServer {
  private ConformanceServer() {
  }

  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    Vertx vertx = Vertx.vertx();
    JsonObject config = ConfigLoader.load(vertx, System.getenv()).await(10, TimeUnit.SECONDS).mergeIn(new JsonObject()
        .put("http", new JsonObject().put("port", 0).put("instances", 1))
        .put("mcp", new JsonObject().put("port", port))
        .put("store", new JsonObject().put("dataDir", Files.createTempDirectory("ark-conformance").toString())), true);
    Main.RunningBroker running = Main.start(vertx, config, features -> new ConformanceFixtures().addTo(features))
        .await(30, TimeUnit.SECONDS);
    System.out.println("MCP conformance server listening on http://localhost:" + running.mcpPort() + "/mcp");
    Runtime.getRuntime().addShutdownHook(new Thread(() -> vertx.close().await()));
  }

}
