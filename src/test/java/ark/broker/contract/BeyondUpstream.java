package ark.broker.contract;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A check of something issues 26 and 27 ask for beyond upstream ark-broker 0.1.67's contract ("Better than
 * upstream"), tagged {@value #TAG} so a run against upstream can be read as: these fail there, for the reason given.
 * {@code -DexcludedGroups=beyond-upstream} runs only upstream's own contract.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Test
@Tag(BeyondUpstream.TAG)
public @interface BeyondUpstream {
  String TAG = "beyond-upstream";

  /** What upstream 0.1.67 does instead. */
  String value();
}
