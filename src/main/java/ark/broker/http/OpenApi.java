package ark.broker.http;

import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /openapi.json}: the OpenAPI 3 document of every route of the REST port, written as YAML beside the code
 * ({@code openapi.yaml}) and served as JSON, as upstream serves its own. Public, like the probes. Read when first
 * asked for, on a worker, once per process: reading YAML costs a cold broker about 300 ms and 144 classes, which a
 * start should not wait for (the tests read the document, so a broken one does not ship).
 */
final class OpenApi {
  static final String PATH = "/openapi.json";

  private OpenApi() {
  }

  static Handler<RoutingContext> handler() {
    return ctx -> ctx.vertx().executeBlocking(() -> Document.JSON).onComplete(read -> {
      if (read.succeeded()) {
        ArkRoutes.rawJson(ctx, 200, Buffer.buffer(read.result()));
      } else {
        ctx.fail(read.cause());
      }
    });
  }

  /** The document as JSON, read when this class is first used (the JVM runs that once, whichever thread asks). */
  private static final class Document {
    static final byte[] JSON = load();

    private Document() {
    }

    private static byte[] load() {
      try (InputStream yaml = OpenApi.class.getResourceAsStream("/openapi.yaml")) {
        if (yaml == null) {
          throw new IllegalStateException("openapi.yaml is missing from the jar");
        }
        Object document = new Load(LoadSettings.builder().build()).loadFromInputStream(yaml);
        return QuestionJson.MAPPER.writeValueAsBytes(document);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("openapi.yaml cannot be written as JSON", e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
