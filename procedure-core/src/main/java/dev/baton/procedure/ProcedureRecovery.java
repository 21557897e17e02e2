package dev.baton.procedure;

import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.store.StoreContents;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds an executor's state from its store: live procedures, root stacks and their rollback
 * entries, pending child counts, waits and deadlines, held locks, failed roots resumed into
 * rollback, runnable procedures queued. A record that cannot be read is reported as corrupt (with
 * the reason) and its tree is failed; everything else recovers.
 */
final class ProcedureRecovery<Env> {
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureRecovery.class);

  private final ExecutorContext<Env> ctx;
  private final String name;

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
    StoreContents contents = ctx.store.load();
    long loadedAt = System.nanoTime();
    long maxId = contents.maxProcId();
    List<StoreRecord> records =
        contents.records() instanceof RandomAccess
            ? contents.records()
            : new ArrayList<>(contents.records());
    int count = records.size();
    RecordDecoding.Result decoded =
        RecordDecoding.decode(ctx.codec, records, ctx.config.recoveryThreads(), name);
    long decodedAt = System.nanoTime();
    // By procId for lookups, and in ascending procId order for everything that iterates.
    Map<Long, Procedure<Env>> loaded = new HashMap<>(hashCapacity(count));
    List<Procedure<Env>> inOrder = new ArrayList<>(count);
    long previousId = Long.MIN_VALUE;
    boolean ascending = true;
    Map<Long, String> corruptReasons = new HashMap<>();
    Map<Long, ProcedureEnvelope> corruptEnvelopes = new HashMap<>();
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
          corruptEnvelopes.put(r.procId(), ProcedureCodec.parseEnvelope(r.procId(), r.data()));
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
    ctx.ids.reset(maxId);
    for (Procedure<Env> p : inOrder) {
      p.beforeRecover(ctx.env);
    }
    List<Procedure<Env>> live = new ArrayList<>();
    Map<Long, String> brokenTrees = new HashMap<>();
    for (Map.Entry<Long, String> e : corruptReasons.entrySet()) {
      ProcedureEnvelope env = corruptEnvelopes.get(e.getKey());
      if (env != null && env.getRootProcId() != e.getKey()) {
        brokenTrees.put(env.getRootProcId(), "member " + e.getKey() + " is corrupt");
      }
    }
    List<Procedure<Env>> finishedRoots = new ArrayList<>();
    Map<Long, List<ProcedureInfo>> finishedMembers = new HashMap<>();
    for (Procedure<Env> p : inOrder) {
      long rootId = p.getRootProcId();
      Procedure<Env> root = rootId == p.getProcId() ? p : loaded.get(rootId);
      if (root == null) {
        String why =
            corruptReasons.containsKey(rootId)
                ? "its root " + rootId + " is corrupt"
                : "its root " + rootId + " is missing";
        corruptReasons.put(p.getProcId(), why);
        corruptEnvelopes.put(p.getProcId(), ctx.codec.toEnvelope(p, ctx.config.term()));
        continue;
      }
      if (!root.isFinished()) {
        live.add(p);
      } else if (p == root) {
        finishedRoots.add(p);
      } else {
        // a member kept with its finished root: retained (queryable), never live again
        p.refreshSnapshot();
        finishedMembers.computeIfAbsent(rootId, k -> new ArrayList<>()).add(p.snapshot());
      }
    }
    for (Procedure<Env> root : finishedRoots) {
      retainCompleted(root, finishedMembers.getOrDefault(root.getProcId(), List.of()));
    }
    for (Map.Entry<Long, String> e : corruptReasons.entrySet()) {
      ctx.corrupt.put(
          e.getKey(),
          ProcedureCodec.corruptInfo(e.getKey(), corruptEnvelopes.get(e.getKey()), e.getValue()));
    }
    wireLive(live, brokenTrees);
    long wiredAt = System.nanoTime();
    LOG.info(
        "recovered {} live procedures in {} trees, {} completed, {} corrupt, in {} ms: load {} ms,"
            + " decode {} ms ({} threads), wiring {} ms",
        live.size(),
        ctx.stacks.size(),
        ctx.completed.rootCount(),
        ctx.corrupt.size(),
        TimeUnit.NANOSECONDS.toMillis(wiredAt - startedAt),
        TimeUnit.NANOSECONDS.toMillis(loadedAt - startedAt),
        TimeUnit.NANOSECONDS.toMillis(decodedAt - loadedAt),
        RecordDecoding.threadsFor(count, ctx.config.recoveryThreads()),
        TimeUnit.NANOSECONDS.toMillis(wiredAt - decodedAt));
  }

  /** A HashMap capacity that holds {@code entries} without resizing. */
  private static int hashCapacity(int entries) {
    return (int) Math.min(Integer.MAX_VALUE, (long) Math.ceil(entries / 0.75) + 1);
  }

  private void retainCompleted(Procedure<Env> root, List<ProcedureInfo> members) {
    root.refreshSnapshot();
    long expiresAt = root.getLastUpdate() + ctx.config.completedRetention().toMillis();
    ctx.completed.add(root.snapshot(), members, root.exec.getNonceKey(), expiresAt, true);
    if (root.exec.getNonceKey() != null) {
      ctx.nonces.put(root.exec.getNonceKey(), root.getProcId());
    }
  }

  private void wireLive(List<Procedure<Env>> live, Map<Long, String> brokenTrees) {
    // Roots first (a root has the lowest procId of its tree, so it is its stack's first member);
    // the maps are sized once for everything (see KeyedView).
    List<RootProcedureStack<Env>> newStacks = new ArrayList<>();
    for (Procedure<Env> p : live) {
      if (!p.hasParent()) {
        RootProcedureStack<Env> stack = new RootProcedureStack<>(p.getProcId());
        stack.addMember(p);
        newStacks.add(stack);
        if (p.exec.getNonceKey() != null) {
          ctx.nonces.put(p.exec.getNonceKey(), p.getProcId());
        }
      }
    }
    ctx.stacks.putAll(KeyedView.of(newStacks, RootProcedureStack::rootProcId));
    ctx.procedures.putAll(KeyedView.of(live, Procedure::getProcId));
    Map<Long, Integer> unfinishedChildren = new HashMap<>();
    for (Procedure<Env> p : live) {
      if (p.hasParent()) {
        ctx.stacks.get(p.getRootProcId()).addMember(p);
        if (!p.isFinished()) {
          unfinishedChildren.merge(p.getParentProcId(), 1, Integer::sum);
        }
      }
      p.refreshSnapshot();
    }
    for (RootProcedureStack<Env> stack : newStacks) {
      stack.rebuildEntries();
      String broken = brokenTrees.get(stack.rootProcId());
      if (broken != null) {
        stack.setFailed(
            ctx.procedures.get(stack.rootProcId()),
            new ProcedureFailure("recovery", broken, "", false));
      }
    }
    List<Procedure<Env>> runnable = new ArrayList<>();
    Set<Procedure<Env>> childrenDone = new HashSet<>();
    for (Procedure<Env> p : live) {
      RootProcedureStack<Env> stack = ctx.stacks.get(p.getRootProcId());
      switch (p.getState()) {
        case RUNNABLE, INITIALIZING -> {
          if (p.getState() == ProcedureState.INITIALIZING) {
            p.transitionTo(ProcedureState.RUNNABLE);
          }
          runnable.add(p);
        }
        case WAITING -> {
          int pending = unfinishedChildren.getOrDefault(p.getProcId(), 0);
          if (p.exec.getPendingChildren() > 0) {
            p.exec.setPendingChildren(pending);
            if (pending == 0) {
              p.transitionTo(ProcedureState.RUNNABLE);
              runnable.add(p);
              childrenDone.add(p);
            }
          }
        }
        case WAITING_TIMEOUT ->
            ctx.timeouts.add(p.exec.getWaitDeadline(), TimeoutQueue.Kind.WAIT_EXPIRED, p);
        case FAILED -> stack.setFailed(p, p.getFailure());
        default -> {
          // SUCCESS children wait for their root; ROLLEDBACK members for the unwind to finish
        }
      }
      if (p.getTimeout() > 0 && !p.isFinished()) {
        ctx.timeouts.add(
            p.getSubmittedTime() + p.getTimeout(), TimeoutQueue.Kind.PROCEDURE_DEADLINE, p);
      }
    }
    for (Procedure<Env> p : runnable) {
      if (childrenDone.contains(p) && ctx.stacks.get(p.getRootProcId()).isFailed()) {
        // Stored WAITING in a failed tree: its children were being rolled back, so its due step
        // never ran and must not be undone.
        continue;
      }
      // its due step may have run before the crash; a rollback must undo it too
      if (p.countInterruptedStepAsExecuted()) {
        ctx.stacks.get(p.getRootProcId()).addEntry(p);
      }
    }
    retakeHeldLocks(live);
    for (RootProcedureStack<Env> stack : newStacks) {
      if (stack.isFailed()) {
        ctx.scheduler.addBack(ctx.procedures.get(stack.rootProcId()));
      }
    }
    for (Procedure<Env> p : runnable) {
      ctx.scheduler.addBack(p);
    }
    for (Procedure<Env> p : live) {
      p.afterRecover(ctx.env);
    }
  }

  /** Locks held across steps are taken again before anything else is scheduled. */
  private void retakeHeldLocks(List<Procedure<Env>> live) {
    ctx.admission.retakeHeldLocks(live);
  }
}
