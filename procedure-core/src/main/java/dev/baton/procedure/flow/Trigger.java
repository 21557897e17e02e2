package dev.baton.procedure.flow;

import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * When a node with parents may run. A node without parents (the start, or the head of a stream
 * part) runs at once whatever its trigger.
 *
 * @param kind the strategy
 * @param count for {@link Kind#AT_LEAST}: how many parents must have succeeded, else 0
 * @param parents for {@link Kind#NAMED}: the parents that must have succeeded, else empty
 * @param predicateId for {@link Kind#CUSTOM}: the id of a predicate registered with {@link
 *     FlowRuntime#predicate}, else empty
 */
public record Trigger(Kind kind, int count, Set<String> parents, String predicateId) {
  /** The trigger strategies. */
  public enum Kind {
    ALL_SUCCEEDED,
    ALL_FINISHED,
    AT_LEAST,
    NAMED,
    CUSTOM
  }

  public Trigger {
    Objects.requireNonNull(kind, "kind");
    parents = Set.copyOf(parents == null ? Set.of() : parents);
    predicateId = predicateId == null ? "" : predicateId;
    if (kind == Kind.AT_LEAST && count < 1) {
      throw new InvalidFlowException("AT_LEAST trigger needs a count >= 1, got " + count);
    }
    if (kind == Kind.NAMED && parents.isEmpty()) {
      throw new InvalidFlowException("NAMED trigger needs at least one parent name");
    }
    if (kind == Kind.CUSTOM && predicateId.isEmpty()) {
      throw new InvalidFlowException("CUSTOM trigger needs a predicate id");
    }
  }

  /** Every parent succeeded (the default). */
  public static Trigger allSucceeded() {
    return new Trigger(Kind.ALL_SUCCEEDED, 0, Set.of(), "");
  }

  /** Every parent finished, successfully or not. */
  public static Trigger allFinished() {
    return new Trigger(Kind.ALL_FINISHED, 0, Set.of(), "");
  }

  /** At least {@code n} parents succeeded. */
  public static Trigger atLeast(int n) {
    return new Trigger(Kind.AT_LEAST, n, Set.of(), "");
  }

  /** The named parents succeeded (the others are not waited for). */
  public static Trigger named(String... parents) {
    return new Trigger(Kind.NAMED, 0, new TreeSet<>(Set.of(parents)), "");
  }

  /** A predicate registered by id decides, given the parents' states. */
  public static Trigger custom(String predicateId) {
    return new Trigger(Kind.CUSTOM, 0, Set.of(), predicateId);
  }
}
