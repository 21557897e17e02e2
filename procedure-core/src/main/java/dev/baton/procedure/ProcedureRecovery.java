package dev.baton.procedure;

import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.store.StoreContents;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds an executor's state from its store, carrying out what {@link RecoveryPlanner} plans:
 * live procedures, root stacks and their rollback entries, pending child counts, waits and
 * deadlines, held locks, failed roots resumed into rollback, runnable procedures queued, and the
 * due steps it counts as executed written to the store before any worker starts. A record that
 * cannot be read is reported as corrupt (with the reason) and its tree is failed; everything else
 * recovers.
 */
final class ProcedureRecovery<Env> {
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureRecovery.class);

  private final ExecutorContext<Env> ctx;
  private final String name;
  private final ProcedureFacts<Procedure<Env>> facts = ProcedureFacts.procedures();

  /**
   * @param name the executor's name (its decoding threads are named after it)
   */
  ProcedureRecovery(ExecutorContext<Env> ctx, String name) {
    this.ctx = ctx;
    this.name = name;
  }

  /** Loads the store and wires everything; procedures are queued but no worker runs yet. */
  @SuppressWarnings("unchecked")
  void recover() throws IOException {
    long startedAt = System.nanoTime();
    StoreContents contents = ctx.store().load();
    long loadedAt = System.nanoTime();
    long maxId = contents.maxProcId();
    List<StoreRecord> records =
        contents.records() instanceof RandomAccess
            ? contents.records()
            : new ArrayList<>(contents.records());
    int count = records.size();
    RecordDecoding.Result decoded =
        RecordDecoding.decode(ctx.codec(), records, ctx.config().recoveryThreads(), name);
    long decodedAt = System.nanoTime();
    // By procId for lookups, and in ascending procId order for everything that iterates.
    Map<Long, Procedure<Env>> loaded = new HashMap<>(hashCapacity(count));
    List<Procedure<Env>> inOrder = new ArrayList<>(count);
    long previousId = Long.MIN_VALUE;
    boolean ascending = true;
    Map<Long, String> corruptReasons = new HashMap<>();
    Map<Long, ProcedureEnvelope> corruptEnvelopes = new HashMap<>();
    Map<Long, Long> corruptRoots = new HashMap<>();
    for (int i = 0; i < count; i++) {
      StoreRecord r = records.get(i);
      maxId = Math.max(maxId, r.procId());
      ProcedureCodecException e = decoded.failures()[i];
      if (e == null) {
        Procedure<Env> p = (Procedure<Env>) decoded.procedures()[i];
        loaded.put(r.procId(), p);
        inOrder.add(p);
        ascending &= r.procId() > previousId;
        previousId = r.procId();
      } else {
        LOG.error(
            "procedure {} cannot be recovered and is reported as corrupt: {}. Its record is kept "
                + "in the store; register the type or remove the procedure.",
            r.procId(),
            e.getMessage());
        corruptReasons.put(r.procId(), e.getMessage());
        try {
          ProcedureEnvelope envelope = ProcedureCodec.parseEnvelope(r.procId(), r.data());
          corruptEnvelopes.put(r.procId(), envelope);
          corruptRoots.put(r.procId(), envelope.getRootProcId());
        } catch (ProcedureCodecException unreadable) {
          // the envelope itself is unreadable; report what we know
        }
      }
    }
    if (!ascending) {
      // The store broke its order contract (or repeated a procId): sort, the last record wins.
      inOrder = new ArrayList<>(loaded.values());
      inOrder.sort(Comparator.comparingLong(Procedure::getProcId));
    }
    ctx.ids().reset(maxId);
    for (Procedure<Env> p : inOrder) {
      p.beforeRecover(ctx.env());
    }
    RecoveryPlanner.Sorting<Procedure<Env>> sorting =
        RecoveryPlanner.sort(inOrder, loaded::get, corruptReasons, corruptRoots, facts);
    for (Map.Entry<Procedure<Env>, String> orphan : sorting.orphans().entrySet()) {
      Procedure<Env> p = orphan.getKey();
      corruptReasons.put(p.getProcId(), orphan.getValue());
      corruptEnvelopes.put(p.getProcId(), ctx.codec().toEnvelope(p, ctx.config().term()));
    }
    for (Procedure<Env> root : sorting.finishedRoots()) {
      List<ProcedureInfo> members = new ArrayList<>();
      for (Procedure<Env> m : sorting.retainedMembers().getOrDefault(root.getProcId(), List.of())) {
        // a member kept with its finished root: retained (queryable), never live again
        m.refreshSnapshot();
        members.add(m.snapshot());
      }
      retainCompleted(root, members);
    }
    for (Map.Entry<Long, String> e : corruptReasons.entrySet()) {
      ctx.corrupt()
          .put(
              e.getKey(),
              ProcedureCodec.corruptInfo(
                  e.getKey(), corruptEnvelopes.get(e.getKey()), e.getValue()));
    }
    List<Procedure<Env>> live = sorting.live();
    int dueSteps = wireLive(live, sorting.brokenTrees());
    long wiredAt = System.nanoTime();
    LOG.info(
        "recovered {} live procedures in {} trees, {} completed, {} corrupt, in {} ms: load {} ms,"
            + " decode {} ms ({} threads), wiring {} ms ({} due steps counted and written)",
        live.size(),
        ctx.stacks().size(),
        ctx.completed().rootCount(),
        ctx.corrupt().size(),
        TimeUnit.NANOSECONDS.toMillis(wiredAt - startedAt),
        TimeUnit.NANOSECONDS.toMillis(loadedAt - startedAt),
        TimeUnit.NANOSECONDS.toMillis(decodedAt - loadedAt),
        RecordDecoding.threadsFor(count, ctx.config().recoveryThreads()),
        TimeUnit.NANOSECONDS.toMillis(wiredAt - decodedAt),
        dueSteps);
  }

  /** A HashMap capacity that holds {@code entries} without resizing. */
  private static int hashCapacity(int entries) {
    return (int) Math.min(Integer.MAX_VALUE, (long) Math.ceil(entries / 0.75) + 1);
  }

  private void retainCompleted(Procedure<Env> root, List<ProcedureInfo> members) {
    root.refreshSnapshot();
    long expiresAt = root.getLastUpdate() + ctx.config().completedRetention().toMillis();
    ctx.completed().add(root.snapshot(), members, root.stored().getNonceKey(), expiresAt, true);
    if (root.stored().getNonceKey() != null) {
      ctx.nonces().put(root.stored().getNonceKey(), root.getProcId());
    }
  }

  /**
   * Carries out the wiring {@link RecoveryPlanner#wire} plans for {@code live}; returns how many
   * due steps it counted as executed and wrote.
   */
  private int wireLive(List<Procedure<Env>> live, Map<Long, String> brokenTrees)
      throws IOException {
    RecoveryPlanner.Wiring<Procedure<Env>> plan = RecoveryPlanner.wire(live, brokenTrees, facts);
    // Roots first (a root has the lowest procId of its tree, so it is its stack's first member);
    // the maps are sized once for everything (see KeyedView).
    List<RootProcedureStack<Env>> newStacks = new ArrayList<>(plan.roots().size());
    for (Procedure<Env> root : plan.roots()) {
      RootProcedureStack<Env> stack = new RootProcedureStack<>(root.getProcId());
      stack.addMember(root);
      newStacks.add(stack);
      if (root.stored().getNonceKey() != null) {
        ctx.nonces().put(root.stored().getNonceKey(), root.getProcId());
      }
    }
    ctx.stacks().putAll(KeyedView.of(newStacks, RootProcedureStack::rootProcId));
    ctx.procedures().putAll(KeyedView.of(live, Procedure::getProcId));
    for (Procedure<Env> p : live) {
      if (p.hasParent()) {
        ctx.stacks().get(p.getRootProcId()).addMember(p);
      }
      p.refreshSnapshot();
    }
    for (RootProcedureStack<Env> stack : newStacks) {
      stack.rebuildEntries();
    }
    for (RecoveryPlanner.StackFailure<Procedure<Env>> f : plan.failures()) {
      ProcedureFailure failure =
          f.reason() == null
              ? f.member().getFailure()
              : new ProcedureFailure("recovery", f.reason(), "", false);
      ctx.stacks().get(f.rootProcId()).setFailed(f.member(), failure);
    }
    plan.pendingChildren().forEach((p, pending) -> p.stored().setPendingChildren(pending));
    for (Procedure<Env> p : plan.resumed()) {
      p.transitionTo(ProcedureState.RUNNABLE);
    }
    for (RecoveryPlanner.Timer<Procedure<Env>> t : plan.timers()) {
      ctx.timeouts().add(t.deadline(), t.kind(), t.proc());
    }
    for (Procedure<Env> p : plan.dueSteps()) {
      // its due step may have run before the crash; a rollback must undo it too
      p.countDueStepAsExecuted();
      ctx.stacks().get(p.getRootProcId()).addEntry(p);
    }
    // written before any step runs: a restart before their next step finds each entry in place
    ctx.writeSeparately(plan.dueSteps());
    retakeHeldLocks(live);
    for (Procedure<Env> p : plan.queue()) {
      ctx.scheduler().addBack(p);
    }
    for (Procedure<Env> p : live) {
      p.afterRecover(ctx.env());
    }
    return plan.dueSteps().size();
  }

  /** Locks held across steps are taken again before anything else is scheduled. */
  private void retakeHeldLocks(List<Procedure<Env>> live) {
    ctx.admission().retakeHeldLocks(live);
  }
}
