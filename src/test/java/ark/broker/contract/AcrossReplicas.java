package ark.broker.contract;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A check that needs two replicas of the broker (skipped, saying so, with one): beyond upstream too, whose
 * replicas share nothing in memory mode and never share traces nor message and event watches.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Test
@Tag(BeyondUpstream.TAG)
@Tag(AcrossReplicas.TAG)
public @interface AcrossReplicas {
  String TAG = "two-replicas";
}
