package dev.baton.confignode.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The values an integer option accepts, {@code min..max} inclusive. A value outside them, or not an
 * integer at all, is a usage error: {@code flag --NAME must be an integer in MIN..MAX, got 'V'}
 * ({@link UsageErrors}).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
@interface Bounds {
  long min();

  long max();
}
