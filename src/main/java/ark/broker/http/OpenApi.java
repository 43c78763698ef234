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
 * ({@code openapi.yaml}) and served as JSON, as upstream serves its own. Public, like the probes.
 */
final class OpenApi {
  static final String PATH = "/openapi.json";

  private OpenApi() {
  }

  /** Serves the document, read when the routes are mounted: a broken document stops the start, not a request. */
  static Handler<RoutingContext> handler() {
    Buffer document = load();
    return ctx -> ArkRoutes.rawJson(ctx, 200, document);
  }

  private static Buffer load() {
    try (InputStream yaml = OpenApi.class.getResourceAsStream("/openapi.yaml")) {
      if (yaml == null) {
        throw new IllegalStateException("openapi.yaml is missing from the jar");
      }
      Object document = new Load(LoadSettings.builder().build()).loadFromInputStream(yaml);
      return Buffer.buffer(QuestionJson.MAPPER.writeValueAsBytes(document));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("openapi.yaml cannot be written as JSON", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
