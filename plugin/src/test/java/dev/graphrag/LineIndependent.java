package dev.graphrag;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class whose outcome no Neo4j line can change (plain Java, the evaluation harness, docs checks): it runs once,
 * on the 5.26 line; the calendar line's profile excludes its tag (root pom, docs/contributing.md#tests).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(LineIndependent.TAG)
public @interface LineIndependent {
    /** The JUnit tag the calendar line's Surefire configuration excludes. */
    String TAG = "line-independent";
}
