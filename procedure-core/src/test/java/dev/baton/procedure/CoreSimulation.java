package dev.baton.procedure;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * One seeded run of the decision core: a deterministic shell around {@link StepDecider}, {@link
 * UnwindPlanner} and {@link RecoveryPlanner} with a fake clock, a store of copies, and a scheduler
 * whose every choice (which queued procedure takes a turn, which running step ends, when the clock
 * moves, aborts, crashes and restarts) comes from the seed. Steps take two ticks (start, end) so
 * that steps of several members interleave as on several workers. The invariants of DESIGN.md are
 * checked after every tick; a violation throws {@link AssertionError} naming the tick.
 */
final class CoreSimulation {
  private static final int MAX_ROOTS = 3;
  private static final int MAX_STEPS = 3;
  private static final int MAX_CHILDREN = 2;
  private static final int MAX_DEPTH = 2;
  private static final int RANDOM_TICKS = 300;
  private static final int DRAIN_TICKS = 5_000;
  private static final long MAX_WAIT = 100;
  private static final long MAX_TIMEOUT = 400;
  private static final long MAX_CLOCK_STEP = 50;
  private static final int PERCENT = 100;
  private static final int CRASH_PERCENT = 2;
  private static final int ABORT_PERCENT = 2;
  private static final int CLOCK_PERCENT = 10;

  /** What a procedure does, fixed at its creation from the seed. */
  private record Script(
      boolean stateMachine,
      int steps,
      int spawnAt,
      int children,
      int failAt,
      int waitAt,
      long waitMillis,
      boolean timeoutFails) {}

  private final Random random;
  private final Map<Long, Script> scripts = new HashMap<>();
  private final Map<Long, Integer> depth = new HashMap<>();
  private final TreeMap<Long, ModelProc> store = new TreeMap<>();
  private final TreeMap<Long, ModelProc> live = new TreeMap<>();
  private final TreeMap<Long, ModelStack> stacks = new TreeMap<>();
  private final List<Long> queue = new ArrayList<>();
  private final Set<Long> onWorker = new LinkedHashSet<>();
  private final List<long[]> timers = new ArrayList<>(); // {deadline, procId}
  // the world's effects, kept across crashes: executed and undone steps per root, in order
  private final Map<Long, List<ModelStack.Undo>> executed = new HashMap<>();
  private final Map<Long, List<ModelStack.Undo>> undone = new HashMap<>();
  // per undo above: how many crashes had happened when it ran
  private final Map<Long, List<Integer>> undoneAfterCrashes = new HashMap<>();
  private final Map<Long, ProcedureState> terminal = new HashMap<>();
  private final List<Long> roots = new ArrayList<>();
  private long now;
  private long nextId = 1;
  private int tick;
  private int crashes;

  CoreSimulation(long seed) {
    this.random = new Random(seed);
  }

  /** What a run went through. */
  record Stats(int ticks, int crashes, int rolledBack, int succeeded, int undos) {}

  /** Runs the seed: random ticks, then a drain without faults until every tree finished. */
  Stats run() {
    int rootCount = 1 + random.nextInt(MAX_ROOTS);
    for (int i = 0; i < rootCount; i++) {
      submitRoot();
    }
    for (tick = 0; tick < RANDOM_TICKS && !quiet(); tick++) {
      randomTick(true);
      checkInvariants();
    }
    for (int i = 0; i < DRAIN_TICKS && !quiet(); i++, tick++) {
      randomTick(false);
      checkInvariants();
    }
    int rolledBack = 0;
    for (long root : roots) {
      ProcedureState s = store.get(root).state;
      check(
          s == ProcedureState.SUCCESS || s == ProcedureState.ROLLEDBACK,
          "root " + root + " never finished: " + store.get(root));
      rolledBack += s == ProcedureState.ROLLEDBACK ? 1 : 0;
    }
    int undos = undone.values().stream().mapToInt(List::size).sum();
    return new Stats(tick, crashes, rolledBack, roots.size() - rolledBack, undos);
  }

  private boolean quiet() {
    return queue.isEmpty()
        && onWorker.isEmpty()
        && timers.isEmpty()
        && stacks.values().stream().noneMatch(s -> s.rollingBack);
  }

  // ------------------------------------------------------------------ the scheduler

  private void randomTick(boolean faults) {
    int roll = random.nextInt(PERCENT);
    if (faults && roll < CRASH_PERCENT) {
      crash();
      return;
    }
    if (faults && roll < CRASH_PERCENT + ABORT_PERCENT && !live.isEmpty()) {
      List<ModelProc> candidates = new ArrayList<>(live.values());
      ModelProc p = candidates.get(random.nextInt(candidates.size()));
      if (!p.isFinished()) {
        p.abortRequested = true;
        queue.add(p.id);
      }
      return;
    }
    List<Runnable> choices = new ArrayList<>();
    if (!queue.isEmpty()) {
      choices.add(() -> turn(queue.remove(random.nextInt(queue.size()))));
    }
    if (!onWorker.isEmpty()) {
      choices.add(() -> endStep(new ArrayList<>(onWorker).get(random.nextInt(onWorker.size()))));
    }
    for (ModelStack s : stacks.values()) {
      if (s.rollingBack) {
        choices.add(() -> unwindMove(s));
        break;
      }
    }
    if (!timers.isEmpty() && (choices.isEmpty() || roll < CLOCK_PERCENT + CRASH_PERCENT)) {
      choices.add(this::advanceClock);
    }
    if (!choices.isEmpty()) {
      choices.get(random.nextInt(choices.size())).run();
    }
  }

  private void advanceClock() {
    long earliest = timers.stream().mapToLong(t -> t[0]).min().orElse(now);
    now = Math.max(now + 1 + random.nextInt((int) MAX_CLOCK_STEP), earliest);
    List<long[]> due = new ArrayList<>();
    for (long[] t : timers) {
      if (t[0] <= now) {
        due.add(t);
      }
    }
    timers.removeAll(due);
    for (long[] t : due) {
      if (live.containsKey(t[1])) {
        queue.add(t[1]);
      }
    }
  }

  // ------------------------------------------------------------------ the shell

  private void submitRoot() {
    ModelProc root = ModelProc.root(nextId++);
    root.submitted = now;
    if (random.nextInt(3) == 0) {
      root.timeout = 1 + random.nextInt((int) MAX_TIMEOUT);
      timers.add(new long[] {root.submitted + root.timeout, root.id});
    }
    depth.put(root.id, 0);
    script(root);
    roots.add(root.id);
    ModelStack stack = new ModelStack(root.id);
    stack.members.add(root);
    stacks.put(root.id, stack);
    live.put(root.id, root);
    write(List.of(root));
    queue.add(root.id);
  }

  private void script(ModelProc p) {
    int steps = 1 + random.nextInt(MAX_STEPS);
    boolean canSpawn = depth.get(p.id) < MAX_DEPTH;
    boolean stateMachine = random.nextBoolean();
    if (stateMachine) {
      p.stateMachine(steps);
    }
    scripts.put(
        p.id,
        new Script(
            stateMachine,
            steps,
            canSpawn && random.nextBoolean() ? random.nextInt(steps) : -1,
            1 + random.nextInt(MAX_CHILDREN),
            random.nextInt(4) == 0 ? random.nextInt(steps) : -1,
            random.nextInt(3) == 0 ? random.nextInt(steps) : -1,
            random.nextInt((int) MAX_WAIT),
            random.nextBoolean()));
  }

  /** A queued procedure's turn (StepRunner#runLocked and #step, without locks or limits). */
  private void turn(long id) {
    ModelProc p = live.get(id);
    if (p == null || p.isFinished() || onWorker.contains(id)) {
      return; // stale queue entry, or on a worker: its end queues what follows
    }
    ModelStack stack = stacks.get(p.root);
    if (stack.failed) {
      unwindIfDue(stack);
      return;
    }
    stack.running++;
    boolean woken = p.woken;
    p.woken = false;
    Script script = scripts.get(id);
    StepDecider.Turn turn =
        StepDecider.decide(p, ModelProc.FACTS, woken, now, q -> script.timeoutFails());
    if (turn.failure() != null) {
      p.failure = turn.failure();
    }
    if (turn.endWait()) {
      p.waitDeadline = 0;
    }
    if (turn.resume()) {
      p.state = ProcedureState.RUNNABLE;
    }
    switch (turn.action()) {
      case RUN -> {
        check(p.state == ProcedureState.RUNNABLE, "runs while " + p);
        onWorker.add(id); // the step runs until its end tick
      }
      case FAIL -> {
        failMember(p, stack);
        stack.running--;
        unwindIfDue(stack);
      }
      default -> stack.running--;
    }
  }

  /** The end of a running step: its outcome (StepRunner#execute). */
  private void endStep(long id) {
    onWorker.remove(id);
    ModelProc p = live.get(id);
    ModelStack stack = stacks.get(p.root);
    check(!p.isFinished(), "a finished procedure ran a step: " + p);
    check(!stack.rollingBack, "a step ran while its stack unwinds: " + p);
    Script script = scripts.get(id);
    int step = p.userStep;
    boolean failed = step == script.failAt();
    StepDecider.StepResult result;
    if (step == script.spawnAt()) {
      result = StepDecider.StepResult.CHILDREN;
    } else if (step >= script.steps() - 1) {
      result = StepDecider.StepResult.DONE;
    } else {
      result = StepDecider.StepResult.AGAIN;
    }
    long wait = step == script.waitAt() ? script.waitMillis() : -1;
    // a state machine records a state once (a restart may have counted it already) and records
    // nothing for the step that only finishes after its last state's children
    boolean recorded = !(script.stateMachine() && (p.dueCounted || step >= script.steps()));
    p.dueCounted = false;
    if (recorded) {
      stack.addEntry(p, step);
      executedStep(p, step);
    }
    p.userStep++;
    StepDecider.Outcome outcome = StepDecider.afterStep(result, failed, false, wait);
    List<ModelProc> batch = new ArrayList<>();
    batch.add(p);
    switch (outcome) {
      case FAIL -> {
        p.failed("step " + step + " failed");
        failMember(p, stack); // writes the batch itself
        batch.clear();
      }
      case WAIT -> {
        p.state = ProcedureState.WAITING_TIMEOUT;
        p.waitDeadline = now + wait;
        timers.add(new long[] {p.waitDeadline, id});
      }
      case CONTINUE -> queue.add(id);
      case SPAWN -> {
        int n = script.children();
        p.pendingChildren = n;
        p.state = ProcedureState.WAITING;
        for (int i = 0; i < n; i++) {
          ModelProc child = ModelProc.child(nextId++, p);
          child.submitted = now;
          depth.put(child.id, depth.get(id) + 1);
          script(child);
          stack.members.add(child);
          live.put(child.id, child);
          batch.add(child);
          queue.add(child.id);
        }
      }
      case SUCCEED -> succeed(p, stack, batch);
      default -> throw new AssertionError("unexpected outcome " + outcome);
    }
    write(batch);
    stack.running--;
    unwindIfDue(stack);
  }

  private void succeed(ModelProc p, ModelStack stack, List<ModelProc> batch) {
    p.state = ProcedureState.SUCCESS;
    if (p.parent == Procedure.NO_PARENT) {
      for (ModelProc m : stack.members) {
        check(m.state == ProcedureState.SUCCESS, "root succeeded before member " + m);
      }
      batch.clear();
      batch.addAll(stack.members);
      retire(stack);
      return;
    }
    ModelProc parent = live.get(p.parent);
    if (--parent.pendingChildren <= 0) {
      parent.woken = true;
      queue.add(parent.id);
    }
  }

  /** A member failed (StepRunner#fail): its stack fails, idle RUNNABLE members with it. */
  private void failMember(ModelProc p, ModelStack stack) {
    p.state = ProcedureState.FAILED;
    stack.failed = true;
    List<ModelProc> batch = new ArrayList<>();
    batch.add(p);
    for (ModelProc m : stack.members) {
      if (m != p && m.state == ProcedureState.RUNNABLE && !onWorker.contains(m.id)) {
        m.state = ProcedureState.FAILED;
        batch.add(m);
      }
    }
    write(batch);
  }

  private void unwindIfDue(ModelStack stack) {
    if (!stack.failed || stack.running > 0 || stack.rollingBack) {
      return;
    }
    stack.rollingBack = true;
    write(stack.failTree(live.get(stack.rootId)));
  }

  /** One move of an unwind (RollbackRunner#unwindClaimed, one entry at a time). */
  private void unwindMove(ModelStack stack) {
    check(stack.running == 0, "stack " + stack.rootId + " unwinds while a member runs");
    for (ModelProc m : stack.members) {
      check(!onWorker.contains(m.id), "member " + m + " on a worker during the unwind");
    }
    List<ModelStack.Undo> undos = undone.computeIfAbsent(stack.rootId, k -> new ArrayList<>());
    List<ModelProc> written = new ArrayList<>();
    UnwindPlanner.Next<ModelProc> next = stack.move(undos, written);
    List<Integer> crashMarks =
        undoneAfterCrashes.computeIfAbsent(stack.rootId, k -> new ArrayList<>());
    while (crashMarks.size() < undos.size()) {
      crashMarks.add(crashes);
    }
    write(written);
    if (next.move() == UnwindPlanner.Move.FINISH) {
      checkRollbackOrder(stack);
      retire(stack);
    }
  }

  private void retire(ModelStack stack) {
    stacks.remove(stack.rootId);
    for (ModelProc m : stack.members) {
      live.remove(m.id);
    }
  }

  private void write(List<ModelProc> batch) {
    for (ModelProc p : batch) {
      ProcedureState before = terminal.get(p.id);
      check(
          before == null || before == p.state,
          "procedure " + p.id + " left its terminal state " + before + " for " + p.state);
      if (p.isFinished()) {
        terminal.put(p.id, p.state);
      }
      store.put(p.id, p.copy());
    }
  }

  /**
   * Logs a step as executed. A state machine's due step counted by a restart is logged there, the
   * earliest point it may have run; it is never logged again (a later restart finds it counted, the
   * step itself records nothing).
   */
  private void executedStep(ModelProc p, int step) {
    List<ModelStack.Undo> log = executed.computeIfAbsent(p.root, k -> new ArrayList<>());
    ModelStack.Undo u = new ModelStack.Undo(p.id, step);
    check(!log.contains(u), "step " + step + " of " + p + " counted as executed twice");
    log.add(u);
  }

  // ------------------------------------------------------------------ crash and recovery

  private void crash() {
    crashes++;
    live.clear();
    stacks.clear();
    queue.clear();
    onWorker.clear();
    timers.clear();
    ModelRecovery recovery = new ModelRecovery(store.values());
    check(recovery.sorting.orphans().isEmpty(), "orphans after a crash");
    live.putAll(recovery.live);
    stacks.putAll(recovery.stacks);
    for (RecoveryPlanner.Timer<ModelProc> t : recovery.plan.timers()) {
      timers.add(new long[] {t.deadline(), t.proc().id});
    }
    // a state machine's due state may have run: counted, and written before any step runs
    List<ModelProc> counted = recovery.countDueSteps();
    for (ModelProc p : counted) {
      executedStep(p, p.userStep);
    }
    write(counted);
    queue.addAll(recovery.queuedIds());
  }

  // ------------------------------------------------------------------ invariants

  /**
   * DESIGN.md invariant 3: the unwind undid exactly the executed steps of the members that did not
   * succeed, newest first; every member ends SUCCESS or ROLLEDBACK.
   */
  private void checkRollbackOrder(ModelStack stack) {
    Set<Long> succeeded = new LinkedHashSet<>();
    for (ModelProc m : stack.members) {
      check(
          m.state == ProcedureState.SUCCESS || m.state == ProcedureState.ROLLEDBACK,
          "member " + m + " not finished by the unwind of " + stack.rootId);
      if (m.state == ProcedureState.SUCCESS) {
        succeeded.add(m.id);
      }
    }
    List<ModelStack.Undo> expected = new ArrayList<>();
    for (ModelStack.Undo e : executed.getOrDefault(stack.rootId, List.of())) {
      if (!succeeded.contains(e.procId())) {
        expected.add(0, e);
      }
    }
    List<ModelStack.Undo> actual = withoutRepeatsAfterCrashes(stack.rootId);
    check(
        expected.equals(actual),
        "root "
            + stack.rootId
            + " undid "
            + actual
            + ", executed steps to undo newest first: "
            + expected);
  }

  /**
   * The undos of a root, an undo repeated right after a crash counted once: a rollback step whose
   * outcome was not written yet (the root's last one is written with the finished tree) runs again
   * after a restart, as any step may (at least once).
   */
  private List<ModelStack.Undo> withoutRepeatsAfterCrashes(long rootId) {
    List<ModelStack.Undo> all = undone.getOrDefault(rootId, List.of());
    List<Integer> marks = undoneAfterCrashes.getOrDefault(rootId, List.of());
    List<ModelStack.Undo> out = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      boolean repeat =
          i > 0 && all.get(i).equals(all.get(i - 1)) && marks.get(i) > marks.get(i - 1);
      if (!repeat) {
        out.add(all.get(i));
      }
    }
    return out;
  }

  /** Invariants after every tick (DESIGN.md 2 and the stack's own). */
  private void checkInvariants() {
    for (ModelProc stored : store.values()) {
      if (stored.parent == Procedure.NO_PARENT && stored.isFinished()) {
        // a root is never stored finished while a member's stored record is live
        for (ModelProc other : store.values()) {
          check(
              other.root != stored.id || other.isFinished(),
              "root " + stored.id + " stored finished while member " + other + " is live");
        }
      }
    }
    for (ModelStack s : stacks.values()) {
      check(s.running >= 0, "negative running count in stack " + s.rootId);
      check(!s.rollingBack || s.failed, "stack " + s.rootId + " unwinds without failing");
    }
  }

  private void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError("tick " + tick + " (after " + crashes + " crashes): " + what);
    }
  }
}
