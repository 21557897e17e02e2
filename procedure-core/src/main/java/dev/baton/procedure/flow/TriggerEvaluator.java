package dev.baton.procedure.flow;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/** Decides whether a node's trigger fires given its parents' states. Pure. */
final class TriggerEvaluator {
  /** The outcome of evaluating a trigger. */
  enum Decision {
    FIRE,
    WAIT,
    /** Can never fire whatever the unfinished parents do. */
    NEVER
  }

  private TriggerEvaluator() {}

  /**
   * @param predicates custom predicates by id (null result: unknown id, which never fires)
   */
  static Decision evaluate(
      Trigger trigger,
      List<String> parentNames,
      List<NodeState> parentStates,
      Function<String, Predicate<Map<String, NodeState>>> predicates) {
    if (parentNames.isEmpty()) {
      return Decision.FIRE;
    }
    int succeeded = 0;
    int failed = 0;
    for (NodeState s : parentStates) {
      if (s == NodeState.SUCCESS) {
        succeeded++;
      } else if (s == NodeState.ERROR) {
        failed++;
      }
    }
    int total = parentStates.size();
    int unfinished = total - succeeded - failed;
    switch (trigger.kind()) {
      case NAMED:
        return named(trigger, parentNames, parentStates);
      case CUSTOM:
        Predicate<Map<String, NodeState>> p = predicates.apply(trigger.predicateId());
        Map<String, NodeState> view = new LinkedHashMap<>();
        for (int i = 0; i < total; i++) {
          view.put(parentNames.get(i), parentStates.get(i));
        }
        if (p != null && p.test(java.util.Collections.unmodifiableMap(view))) {
          return Decision.FIRE;
        }
        return unfinished == 0 ? Decision.NEVER : Decision.WAIT;
      default:
        return evaluate(trigger, total, succeeded, failed);
    }
  }

  /**
   * Decides a trigger that counts its parents (ALL_SUCCEEDED, ALL_FINISHED, AT_LEAST) from the
   * counts alone.
   *
   * @param total the node's parents
   * @param succeeded parents that are SUCCESS
   * @param failed parents that are ERROR
   */
  static Decision evaluate(Trigger trigger, int total, int succeeded, int failed) {
    if (total == 0) {
      return Decision.FIRE;
    }
    int unfinished = total - succeeded - failed;
    switch (trigger.kind()) {
      case ALL_SUCCEEDED:
        return failed > 0 ? Decision.NEVER : succeeded == total ? Decision.FIRE : Decision.WAIT;
      case ALL_FINISHED:
        return unfinished == 0 ? Decision.FIRE : Decision.WAIT;
      case AT_LEAST:
        if (succeeded >= trigger.count()) {
          return Decision.FIRE;
        }
        return succeeded + unfinished < trigger.count() ? Decision.NEVER : Decision.WAIT;
      default:
        throw new IllegalStateException(
            "trigger kind " + trigger.kind() + " is not decided from counts");
    }
  }

  private static Decision named(Trigger t, List<String> names, List<NodeState> states) {
    boolean all = true;
    for (int i = 0; i < names.size(); i++) {
      if (!t.parents().contains(names.get(i))) {
        continue;
      }
      if (states.get(i) == NodeState.ERROR) {
        return Decision.NEVER;
      }
      all &= states.get(i) == NodeState.SUCCESS;
    }
    return all ? Decision.FIRE : Decision.WAIT;
  }
}
