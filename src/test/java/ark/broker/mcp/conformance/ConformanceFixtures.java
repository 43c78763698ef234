package ark.broker.mcp.conformance;

import ark.broker.mcp.protocol.JsonRpcError;
import ark.broker.mcp.protocol.McpFeatures;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.McpServer;
import ark.broker.mcp.protocol.Prompt;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.mcp.protocol.ResourceProvider;
import ark.broker.mcp.protocol.Tool;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.util.Base64;
import java.util.List;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tools, resources and prompts the official MCP conformance suite (0.1.x) calls, offered only by
 * the test server that runs the suite, never by the broker itself.
 */
public final class ConformanceFixtures {
  /** A 1x1 transparent PNG. */
  static final String PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
  /** A WAV header with no samples: 44 bytes, mono, 8 kHz. */
  static final String WAV = Base64.getEncoder().encodeToString(new byte[] {
      'R', 'I', 'F', 'F', 36, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ', 16, 0, 0, 0, 1, 0, 1, 0,
      0x40, 0x1f, 0, 0, (byte) 0x80, 0x3e, 0, 0, 2, 0, 16, 0, 'd', 'a', 't', 'a', 0, 0, 0, 0});
  private static final Pattern TEMPLATE = Pattern.compile("test://template/([^/]+)/data");
  private static final String RECONNECTION = "fixture-reconnection";

  private Vertx vertx;

  /** Called while the MCP verticle starts, on its context, whose Vert.x runs the fixtures' timers. */
  public void addTo(McpFeatures features) {
    vertx = Vertx.currentContext().owner();
    tool(features, "test_simple_text", "Returns simple text", (ctx, args) -> done(text("This is a simple text response for testing.")));
    tool(features, "test_image_content", "Returns an image", (ctx, args) -> done(content(image())));
    tool(features, "test_audio_content", "Returns audio", (ctx, args) -> done(content(
        McpJson.object().put("type", "audio").put("data", WAV).put("mimeType", "audio/wav"))));
    tool(features, "test_embedded_resource", "Returns an embedded resource", (ctx, args) -> done(content(
        resource("test://embedded-resource", "text/plain", "This is an embedded resource content."))));
    tool(features, "test_multiple_content_types", "Returns text, an image and a resource", (ctx, args) -> done(content(
        McpJson.object().put("type", "text").put("text", "Multiple content types test:"), image(),
        resource("test://mixed-content-resource", "application/json", "{\"test\":\"data\",\"value\":123}"))));
    tool(features, "test_tool_with_logging", "Logs while it runs", this::logging);
    tool(features, "test_error_handling", "Always fails", (ctx, args) -> {
      ObjectNode result = text("This tool intentionally returns an error for testing");
      result.put("isError", true);
      return done(result);
    });
    tool(features, "test_tool_with_progress", "Reports progress", this::progress);
    features.tool(new Tool(definition("test_sampling", "Asks the client's LLM",
        properties("prompt", "The prompt to send to the LLM")), this::sampling));
    features.tool(new Tool(definition("test_elicitation", "Asks the user for information",
        properties("message", "The message to show the user")), this::elicitation));
    tool(features, "test_elicitation_sep1034_defaults", "Elicits with defaults", (ctx, args) -> elicit(ctx,
        "Please review and update the form fields with defaults", sep1034Schema()));
    tool(features, "test_elicitation_sep1330_enums", "Elicits with every enum form", (ctx, args) -> elicit(ctx,
        "Please select options from the enum fields", sep1330Schema()));
    features.tool(new Tool(jsonSchema2020Tool(), (ctx, args) -> done(text("ok"))));
    tool(features, "test_reconnection", "Closes its stream mid-call; the result comes after the client reconnects",
        (ctx, args) -> {
          ctx.resumable(RECONNECTION, McpJson.object());
          ctx.stream();
          vertx.setTimer(50, t -> ctx.cutStream());
          return Promise.<ObjectNode>promise().future();
        });
    features.resumer(RECONNECTION, state -> state.isObject() && state.isEmpty(),
        (ctx, state) -> done(text("Reconnection test completed successfully")).map(JsonNode.class::cast));

    features.resources(new FixtureResources());
    prompt(features, "test_simple_prompt", "A simple prompt", List.of(), (ctx, args) ->
        done(messages(McpJson.object().put("type", "text").put("text", "This is a simple prompt for testing."))));
    prompt(features, "test_prompt_with_arguments", "A prompt with arguments", List.of("arg1", "arg2"), (ctx, args) ->
        done(messages(McpJson.object().put("type", "text").put("text", "Prompt with arguments: arg1='"
            + args.path("arg1").asText() + "', arg2='" + args.path("arg2").asText() + "'"))));
    prompt(features, "test_prompt_with_embedded_resource", "A prompt with a resource", List.of("resourceUri"), (ctx, args) ->
        done(messages(resource(args.path("resourceUri").asText("test://example-resource"), "text/plain",
            "Embedded resource content for testing."), McpJson.object().put("type", "text")
            .put("text", "Please process the embedded resource above."))));
    prompt(features, "test_prompt_with_image", "A prompt with an image", List.of(), (ctx, args) ->
        done(messages(image(), McpJson.object().put("type", "text").put("text", "Please analyze the image above."))));
    features.completions((ctx, ref, argument) -> done(McpJson.object()
        .<ObjectNode>set("values", McpJson.array().add("paris").add("park").add("party")).put("total", 3).put("hasMore", false)));
  }

  // ---- tools that talk to the client ----

  private Future<ObjectNode> logging(RequestContext ctx, ObjectNode arguments) {
    Promise<ObjectNode> done = Promise.promise();
    ctx.log("info", "conformance", McpJson.MAPPER.getNodeFactory().textNode("Tool execution started"));
    vertx.setTimer(50, first -> {
      ctx.log("info", "conformance", McpJson.MAPPER.getNodeFactory().textNode("Tool processing data"));
      vertx.setTimer(50, second -> {
        ctx.log("info", "conformance", McpJson.MAPPER.getNodeFactory().textNode("Tool execution completed"));
        done.complete(text("Tool with logging executed successfully"));
      });
    });
    return done.future();
  }

  private Future<ObjectNode> progress(RequestContext ctx, ObjectNode arguments) {
    Promise<ObjectNode> done = Promise.promise();
    ctx.progress(0, 100.0, null);
    vertx.setTimer(50, first -> {
      ctx.progress(50, 100.0, null);
      vertx.setTimer(50, second -> {
        ctx.progress(100, 100.0, null);
        done.complete(text("Progress test completed"));
      });
    });
    return done.future();
  }

  private Future<ObjectNode> sampling(RequestContext ctx, ObjectNode arguments) {
    ObjectNode params = McpJson.object().put("maxTokens", 100);
    params.putArray("messages").addObject().put("role", "user").putObject("content")
        .put("type", "text").put("text", arguments.path("prompt").asText());
    return ctx.request("sampling/createMessage", params)
        .map(result -> text("LLM response: " + result.path("content").path("text").asText()));
  }

  private Future<ObjectNode> elicitation(RequestContext ctx, ObjectNode arguments) {
    ObjectNode schema = McpJson.object().put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    properties.putObject("username").put("type", "string").put("description", "Your username");
    properties.putObject("email").put("type", "string").put("description", "Your email address");
    schema.set("required", McpJson.array().add("username").add("email"));
    return ctx.request("elicitation/create", McpJson.object().put("message", arguments.path("message").asText())
            .<ObjectNode>set("requestedSchema", schema))
        .map(result -> text("User response: action=" + result.path("action").asText() + ", content="
            + McpJson.write(result.path("content"))));
  }

  private Future<ObjectNode> elicit(RequestContext ctx, String message, ObjectNode schema) {
    return ctx.request("elicitation/create", McpJson.object().put("message", message).<ObjectNode>set("requestedSchema", schema))
        .map(result -> text("Elicitation completed: action=" + result.path("action").asText() + ", content="
            + McpJson.write(result.path("content"))));
  }

  private static ObjectNode sep1034Schema() {
    ObjectNode schema = McpJson.object().put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    properties.putObject("name").put("type", "string").put("description", "User name").put("default", "John Doe");
    properties.putObject("age").put("type", "integer").put("description", "User age").put("default", 30);
    properties.putObject("score").put("type", "number").put("description", "User score").put("default", 95.5);
    properties.putObject("status").put("type", "string").put("description", "User status")
        .put("default", "active").set("enum", McpJson.array().add("active").add("inactive").add("pending"));
    properties.putObject("verified").put("type", "boolean").put("description", "Verification status").put("default", true);
    return schema;
  }

  private static ObjectNode sep1330Schema() {
    ObjectNode schema = McpJson.object().put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    properties.putObject("untitledSingle").put("type", "string").put("description", "Untitled single-select")
        .set("enum", McpJson.array().add("option1").add("option2").add("option3"));
    properties.putObject("titledSingle").put("type", "string").put("description", "Titled single-select")
        .set("oneOf", titled("value", "First Option", "Second Option", "Third Option"));
    ObjectNode legacy = properties.putObject("legacyEnum").put("type", "string").put("description", "Legacy titled enum");
    legacy.set("enum", McpJson.array().add("opt1").add("opt2").add("opt3"));
    legacy.set("enumNames", McpJson.array().add("Option One").add("Option Two").add("Option Three"));
    ObjectNode untitledMulti = properties.putObject("untitledMulti").put("type", "array").put("description", "Untitled multi-select");
    untitledMulti.putObject("items").put("type", "string").set("enum", McpJson.array().add("option1").add("option2").add("option3"));
    ObjectNode titledMulti = properties.putObject("titledMulti").put("type", "array").put("description", "Titled multi-select");
    titledMulti.putObject("items").set("anyOf", titled("value", "First Choice", "Second Choice", "Third Choice"));
    return schema;
  }

  private static ArrayNode titled(String prefix, String... titles) {
    ArrayNode choices = McpJson.array();
    for (int i = 0; i < titles.length; i++) {
      choices.addObject().put("const", prefix + (i + 1)).put("title", titles[i]);
    }
    return choices;
  }

  private static ObjectNode jsonSchema2020Tool() {
    ObjectNode definition = McpJson.object().put("name", "json_schema_2020_12_tool")
        .put("description", "Tool with JSON Schema 2020-12 features");
    ObjectNode schema = definition.putObject("inputSchema")
        .put("$schema", "https://json-schema.org/draft/2020-12/schema").put("type", "object");
    ObjectNode address = schema.putObject("$defs").putObject("address").put("type", "object");
    address.putObject("properties").<ObjectNode>set("street", McpJson.object().put("type", "string"))
        .set("city", McpJson.object().put("type", "string"));
    ObjectNode properties = schema.putObject("properties");
    properties.putObject("name").put("type", "string");
    properties.putObject("address").put("$ref", "#/$defs/address");
    schema.put("additionalProperties", false);
    return definition;
  }

  // ---- resources ----

  private static final class FixtureResources implements ResourceProvider {
    @Override
    public Future<List<ObjectNode>> list(RequestContext ctx) {
      return done(List.of(
          entry("test://static-text", "static-text", "text/plain"),
          entry("test://static-binary", "static-binary", "image/png"),
          entry("test://watched-resource", "watched-resource", "text/plain")));
    }

    @Override
    public List<ObjectNode> templates() {
      return List.of(McpJson.object().put("uriTemplate", "test://template/{id}/data").put("name", "template")
          .put("description", "A resource template with a parameter").put("mimeType", "application/json"));
    }

    @Override
    public boolean owns(String uri) {
      return uri.startsWith("test://");
    }

    @Override
    public Future<ArrayNode> read(RequestContext ctx, String uri) {
      ArrayNode contents = McpJson.array();
      Matcher template = TEMPLATE.matcher(uri);
      switch (uri) {
        case "test://static-text" -> contents.addObject().put("uri", uri).put("mimeType", "text/plain")
            .put("text", "This is the content of the static text resource.");
        case "test://static-binary" -> contents.addObject().put("uri", uri).put("mimeType", "image/png").put("blob", PNG);
        case "test://watched-resource" -> contents.addObject().put("uri", uri).put("mimeType", "text/plain")
            .put("text", "Watched resource content");
        default -> {
          if (!template.matches()) {
            return Future.failedFuture(McpServer.resourceNotFound(uri));
          }
          String id = template.group(1);
          contents.addObject().put("uri", uri).put("mimeType", "application/json").put("text", McpJson.write(
              McpJson.object().put("id", id).put("templateTest", true).put("data", "Data for ID: " + id)));
        }
      }
      return done(contents);
    }

    private static ObjectNode entry(String uri, String name, String mimeType) {
      return McpJson.object().put("uri", uri).put("name", name).put("mimeType", mimeType);
    }
  }

  // ---- building blocks ----

  private static void tool(McpFeatures features, String name, String description,
                           BiFunction<RequestContext, ObjectNode, Future<ObjectNode>> handler) {
    ObjectNode definition = definition(name, description, McpJson.object());
    features.tool(new Tool(definition, handler::apply));
  }

  private static ObjectNode definition(String name, String description, ObjectNode properties) {
    ObjectNode definition = McpJson.object().put("name", name).put("description", description);
    ObjectNode schema = definition.putObject("inputSchema").put("type", "object");
    schema.set("properties", properties);
    return definition;
  }

  private static ObjectNode properties(String name, String description) {
    ObjectNode properties = McpJson.object();
    properties.putObject(name).put("type", "string").put("description", description);
    return properties;
  }

  private static void prompt(McpFeatures features, String name, String description, List<String> arguments,
                             BiFunction<RequestContext, ObjectNode, Future<ObjectNode>> handler) {
    ObjectNode definition = McpJson.object().put("name", name).put("description", description);
    ArrayNode declared = definition.putArray("arguments");
    arguments.forEach(argument -> declared.addObject().put("name", argument).put("description", "The " + argument).put("required", true));
    features.prompt(new Prompt(definition, (ctx, args) -> {
      for (String argument : arguments) {
        if (!args.has(argument)) {
          return Future.failedFuture(JsonRpcError.invalidParams("missing argument " + argument));
        }
      }
      return handler.apply(ctx, args);
    }));
  }

  private static ObjectNode text(String text) {
    return content(McpJson.object().put("type", "text").put("text", text));
  }

  private static ObjectNode content(ObjectNode... items) {
    ObjectNode result = McpJson.object();
    ArrayNode content = result.putArray("content");
    for (ObjectNode item : items) {
      content.add(item);
    }
    return result;
  }

  private static ObjectNode image() {
    return McpJson.object().put("type", "image").put("data", PNG).put("mimeType", "image/png");
  }

  private static ObjectNode resource(String uri, String mimeType, String text) {
    ObjectNode item = McpJson.object().put("type", "resource");
    item.putObject("resource").put("uri", uri).put("mimeType", mimeType).put("text", text);
    return item;
  }

  private static ObjectNode messages(ObjectNode... contents) {
    ObjectNode result = McpJson.object();
    ArrayNode messages = result.putArray("messages");
    for (ObjectNode content : contents) {
      messages.addObject().put("role", "user").set("content", content);
    }
    return result;
  }

  private static <T> Future<T> done(T value) {
    return Future.succeededFuture(value);
  }
}
