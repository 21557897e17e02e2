package dev.baton.procedure;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A restart from stored model records, as {@link ProcedureRecovery} carries out {@link
 * RecoveryPlanner}'s plan: copies of the records sorted, live trees wired into {@link ModelStack}s
 * with their entries, failures, pending children and resumed members; {@link #countDueSteps} counts
 * the due steps.
 */
final class ModelRecovery {
  final RecoveryPlanner.Sorting<ModelProc> sorting;
  final RecoveryPlanner.Wiring<ModelProc> plan;
  final TreeMap<Long, ModelProc> live = new TreeMap<>();
  final TreeMap<Long, ModelStack> stacks = new TreeMap<>();

  ModelRecovery(Collection<ModelProc> stored) {
    List<ModelProc> inOrder = new ArrayList<>();
    for (ModelProc p : stored) {
      inOrder.add(p.copy());
    }
    inOrder.sort(Comparator.comparingLong(p -> p.id));
    Map<Long, ModelProc> byId = new HashMap<>();
    inOrder.forEach(p -> byId.put(p.id, p));
    sorting = RecoveryPlanner.sort(inOrder, byId::get, Map.of(), Map.of(), ModelProc.FACTS);
    plan = RecoveryPlanner.wire(sorting.live(), sorting.brokenTrees(), ModelProc.FACTS);
    for (ModelProc root : plan.roots()) {
      stacks.put(root.id, new ModelStack(root.id));
    }
    for (ModelProc p : sorting.live()) {
      live.put(p.id, p);
      stacks.get(p.root).members.add(p);
    }
    stacks.values().forEach(ModelStack::rebuildEntries);
    for (RecoveryPlanner.StackFailure<ModelProc> f : plan.failures()) {
      stacks.get(f.rootProcId()).failed = true;
    }
    plan.pendingChildren().forEach((p, n) -> p.pendingChildren = n);
    plan.resumed().forEach(p -> p.state = ProcedureState.RUNNABLE);
  }

  /**
   * Counts the planned due steps as run, as {@link ProcedureRecovery} does: each gets the next
   * entry of its stack, recording its due state. Returns them: what recovery writes before any step
   * runs.
   */
  List<ModelProc> countDueSteps() {
    for (ModelProc p : plan.dueSteps()) {
      stacks.get(p.root).addEntry(p, p.userStep);
      p.dueCounted = true;
    }
    return plan.dueSteps();
  }

  /** The ids queued, in order. */
  List<Long> queuedIds() {
    return plan.queue().stream().map(p -> p.id).toList();
  }
}
