package ark.broker.testing;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test that drives the broker with a real client from npm ({@link NodeScript}: the MCP SDK and Inspector, the
 * conformance suite, Playwright): it needs Node.js and npm, and installs the packages on first use. Tagged
 * {@value #TAG}, so {@code mvn verify -DexcludedGroups=node} runs everything else with only a JDK and Maven.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(NodeDriven.TAG)
public @interface NodeDriven {
  String TAG = "node";
}
