package dev.baton.procedure.flow;

import dev.baton.procedure.BoundedReads;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.ProcedureSuspendedException;
import dev.baton.procedure.store.RecordParts;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A flow as a root procedure. Its state is the {@link FlowGraph}, stored once per record: the
 * graph's head as the record's result and its node chunks and folded names as the record's parts,
 * of which a step writes those it changed ({@link GraphParts}); any node shows the flow from the
 * result, which readers see as the head followed by the parts. Each step: publishes the outcomes of
 * operator commands applied by the previous (persisted) step, applies newly posted commands,
 * collects finished tasks, links appended stream nodes, evaluates triggers and submits the due
 * nodes' tasks as root procedures, then waits until a task or command wakes it (or the poll
 * interval passes).
 *
 * <p>Tasks are submitted with a nonce made of the flow, node and attempt, so a step that runs again
 * after a crash or a leader change finds the tasks it had already submitted instead of starting
 * them twice. Tasks are root procedures, not children: a child's failure would roll back the whole
 * flow, while a flow reacts to a failed node with its own policy.
 */
final class FlowProcedure<Env> extends Procedure<Env> {
  private static final Logger LOG = LoggerFactory.getLogger(FlowProcedure.class);
  private static final int ATTEMPT_BITS = 12;
  private static final int EPOCH_BITS = 12;
  private static final int NODE_SHIFT = ATTEMPT_BITS + EPOCH_BITS;
  private static final int ACTION_BITS = 2;
  private static final long COMMAND_NONCE_FLAG = 1L << 62;
  private static final int MASK_12 = (1 << 12) - 1;

  /** Length of the graph in the state data of a record whose graph is its result. */
  private static final int GRAPH_IN_RESULT = 0;

  private final FlowRuntime<Env> runtime;
  private FlowGraph graph;

  /** Not persisted: RUNNING nodes by task procId, valid once a full scan has run in this JVM. */
  private final Map<Long, FlowNode> runningByTask = new HashMap<>();

  private boolean scanned;

  /**
   * Not persisted: a store write failed during a step of this object, whose in-memory state is now
   * ahead of the store. No further step of it may be recorded; the executor is stopping.
   */
  private volatile boolean storeFailed;

  FlowProcedure(FlowRuntime<Env> runtime) {
    this.runtime = runtime;
  }

  static <Env> FlowProcedure<Env> finite(FlowRuntime<Env> runtime, FlowDefinition def) {
    FlowProcedure<Env> p = new FlowProcedure<>(runtime);
    p.graph = FlowGraph.of(def);
    p.publishView();
    return p;
  }

  static <Env> FlowProcedure<Env> stream(FlowRuntime<Env> runtime, String scene, String group) {
    FlowProcedure<Env> p = new FlowProcedure<>(runtime);
    p.graph = new FlowGraph(FlowInfo.Kind.STREAM, scene, group);
    p.publishView();
    return p;
  }

  /** The key an append names its stream by. */
  static String streamKey(String scene, String group) {
    return scene + '\u0000' + group;
  }

  /** Nonce group of the procedures a flow starts (tasks, resume commands): never a client's. */
  static long nonceGroup(long flowId) {
    return -flowId;
  }

  static NonceKey taskNonce(long flowId, int node, int epoch, int attempt) {
    return new NonceKey(
        nonceGroup(flowId),
        ((long) node << NODE_SHIFT) | ((long) (epoch & MASK_12) << ATTEMPT_BITS) | attempt);
  }

  /** One resume command per node, suspension and action: a repeat gets the first's outcome. */
  static NonceKey resumeNonce(long flowId, int node, int epoch, ResumeAction action) {
    return new NonceKey(
        nonceGroup(flowId),
        COMMAND_NONCE_FLAG
            | ((long) node << (EPOCH_BITS + ACTION_BITS))
            | ((long) (epoch & MASK_12) << ACTION_BITS)
            | action.ordinal());
  }

  @Override
  @SuppressWarnings("unchecked")
  protected Procedure<Env>[] execute(Env env)
      throws InterruptedException, ProcedureSuspendedException {
    if (storeFailed) {
      throw new InterruptedException(
          "flow " + getProcId() + ": the store failed; the executor stops");
    }
    Optional<ProcedureExecutor<Env>> bound = runtime.executor();
    if (bound.isEmpty()) {
      waitTimeout(runtime.pollMillis()); // no executor bound yet (a cluster still electing)
      return new Procedure[] {this};
    }
    ProcedureExecutor<Env> ex = bound.get();
    long now = ex.currentTimeMillis();
    FlowPlanner planner = new FlowPlanner(graph, runtime::predicateOf);
    publishOutcomes(ex);
    boolean applied = applyCommands(planner);
    List<Long> reported = runtime.mailbox().drainFinished(getProcId());
    if (!scanned || (reported.isEmpty() && !applied)) {
      collectAllTasks(ex, planner, now); // first step in this JVM, or a poll: check every task
    } else {
      for (long taskId : reported) {
        FlowNode n = runningByTask.get(taskId);
        if (n != null) {
          collectTask(ex, planner, n, now);
        }
      }
    }
    boolean moreToLink = false;
    if (graph.isStream() && !planner.isEnded()) {
      planner.linkBatch();
      moreToLink = planner.hasUnlinked();
    }
    if (!planner.isEnded()) {
      for (FlowNode n : planner.evaluate(now)) {
        launch(ex, planner, n, now);
      }
    }
    planner.updateState();
    planner.foldFinishedPrefix(runtime.keptFinishedStreamNodes());
    if (!graph.isStream()
        && graph.state() == FlowState.FINISH
        && graph.appliedCommands().isEmpty()) {
      runtime.mailbox().forgetFlow(getProcId());
      return null;
    }
    if (applied || moreToLink) {
      return new Procedure[] {this};
    }
    if (graph.appliedCommands().isEmpty() && !planner.hasActiveNodes()) {
      // idle (a stream between appends, a flow waiting for an operator): wait without polling;
      // a command or a task completion wakes it, also after a restart
      throw new ProcedureSuspendedException("flow " + getProcId() + " is " + graph.state());
    }
    long next = planner.nextRetryAt(now);
    long wait =
        Math.min(runtime.pollMillis(), next == Long.MAX_VALUE ? Long.MAX_VALUE : next - now);
    waitTimeout(Math.max(0, wait));
    return new Procedure[] {this};
  }

  /** Commands applied by a persisted step: hand their outcome over, forget finished ones. */
  private void publishOutcomes(ProcedureExecutor<Env> ex) {
    for (Map.Entry<Long, String> c : List.copyOf(graph.appliedCommands().entrySet())) {
      Optional<ProcedureInfo> info = ex.getInfo(c.getKey());
      if (info.isEmpty() || info.get().finished()) {
        graph.forgetCommand(c.getKey());
        runtime.mailbox().forget(c.getKey());
      } else {
        runtime.mailbox().publish(c.getKey(), c.getValue());
        ex.wake(c.getKey());
      }
    }
  }

  private boolean applyCommands(FlowPlanner planner) {
    boolean applied = false;
    for (FlowCommand c : runtime.mailbox().drain(getProcId())) {
      if (graph.appliedCommands().containsKey(c.commandId())) {
        continue; // posted again after a restart; its outcome is published next step
      }
      String outcome = "";
      try {
        if (c.kind() == FlowCommand.Kind.RESUME) {
          planner.resume(c.node(), c.action());
        } else if (!graph.isStream()) {
          throw new InvalidFlowException("flow " + getProcId() + " is not a stream flow");
        } else if (!c.node().equals(streamKey(graph.scene(), graph.group()))) {
          throw new InvalidFlowException(
              "stream flow "
                  + getProcId()
                  + " is "
                  + graph.streamName()
                  + ", not "
                  + c.node().replace('\u0000', '/'));
        } else {
          planner.append(c.nodes());
        }
      } catch (InvalidFlowException e) {
        outcome = e.getMessage();
      }
      graph.commandApplied(c.commandId(), outcome);
      applied = true;
    }
    return applied;
  }

  private void collectAllTasks(ProcedureExecutor<Env> ex, FlowPlanner planner, long now) {
    runningByTask.clear();
    BitSet running = (BitSet) graph.index().running().clone(); // collecting changes the set
    for (int i = running.nextSetBit(0); i >= 0; i = running.nextSetBit(i + 1)) {
      FlowNode n = graph.nodes().get(i);
      runningByTask.put(n.taskProcId(), n);
      collectTask(ex, planner, n, now);
      if (!scanned && n.state() == NodeState.RUNNING) {
        reportWhenFinished(ex, n.taskProcId()); // started before a restart: wake on its end
      }
    }
    scanned = true;
  }

  /** Applies the outcome of a RUNNING node's task if it finished. */
  private void collectTask(ProcedureExecutor<Env> ex, FlowPlanner planner, FlowNode n, long now) {
    Optional<ProcedureInfo> info = ex.getInfo(n.taskProcId());
    List<Long> abort = List.of();
    if (info.isEmpty()) {
      abort =
          planner.taskFinished(
              n, false, "task procedure " + n.taskProcId() + " is gone (retention passed)", now);
    } else if (info.get().finished()) {
      boolean ok = info.get().state() == ProcedureState.SUCCESS;
      String why = ok ? "" : String.valueOf(info.get().failure());
      abort = planner.taskFinished(n, ok, why, now);
    }
    if (n.state() != NodeState.RUNNING) {
      runningByTask.remove(n.taskProcId());
    }
    for (long id : abort) {
      ex.abort(id);
    }
  }

  /** When the task finishes, report it to this flow and wake the flow. */
  private void reportWhenFinished(ProcedureExecutor<Env> ex, long taskId) {
    long flowId = getProcId();
    ex.whenFinished(taskId)
        .whenComplete(
            (info, error) -> {
              if (error == null) {
                runtime.mailbox().reportFinished(flowId, taskId);
                ex.wake(flowId);
              }
            });
  }

  private void launch(ProcedureExecutor<Env> ex, FlowPlanner planner, FlowNode n, long now)
      throws InterruptedException {
    int attempt = n.startAttempt();
    long flowId = getProcId();
    try {
      Procedure<Env> task = runtime.newTask(n.spec());
      long id = ex.submit(task, taskNonce(flowId, n.index(), n.pendingEpoch(), attempt));
      n.taskSubmitted(id);
      runningByTask.put(id, n);
      reportWhenFinished(ex, id);
    } catch (IllegalArgumentException e) { // unknown type, bad arguments: the attempt failed
      for (long abortId : planner.taskFinished(n, false, e.getMessage(), now)) {
        ex.abort(abortId);
      }
    } catch (UncheckedIOException e) {
      // The store failed while the task was written: whether it is durable is unknown. Stop the
      // executor as it stops on a failed write of its own; this step is not recorded and runs
      // again after recovery, where the task's nonce finds the task if it was written.
      LOG.error(
          "flow {}: the store failed submitting the task of node '{}' (attempt {}); stopping the"
              + " executor, the flow resumes from the store when an executor starts again",
          flowId,
          n.name(),
          attempt,
          e);
      storeFailed = true;
      Thread stopper = new Thread(ex::stop, "flow-" + flowId + "-store-failure-stop");
      stopper.setDaemon(true);
      stopper.start();
      throw new InterruptedException("store failure while submitting a task of flow " + flowId);
    }
  }

  /**
   * The whole graph as the result, in the format without parts: what a new flow's submission
   * carries (it is written before any executor persists it).
   */
  private void publishView() {
    try {
      setOwnedResult(graph.encode()); // a fresh array the graph does not keep
    } catch (IOException e) {
      throw new UncheckedIOException("flow state of " + getProcId() + " cannot be encoded", e);
    }
  }

  /**
   * Each record holds the graph's head as its result and the names and node chunks that changed
   * since the last record as parts ({@link GraphParts}), so a step writes what it changed.
   */
  @Override
  protected RecordParts partsToPersist() {
    try {
      setOwnedResult(graph.encodeHead());
      return graph.takeParts();
    } catch (IOException e) {
      throw new UncheckedIOException("flow state of " + getProcId() + " cannot be encoded", e);
    }
  }

  /** The flow's view as of its last persisted step. */
  static FlowInfo view(ProcedureInfo info) {
    byte[] r = info.result();
    if (r == null) {
      throw new IllegalStateException("procedure " + info.procId() + " has no flow state");
    }
    try {
      return FlowGraph.decode(r).toInfo(info.procId());
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "procedure " + info.procId() + " (" + info.type() + ") holds no readable flow state", e);
    }
  }

  @Override
  protected boolean setTimeoutFailure(Env env) {
    return false; // an expired wait is a poll, not a failure
  }

  @Override
  protected void rollback(Env env) {
    // a flow's steps change only its own state; its tasks are procedures of their own
  }

  @Override
  protected boolean abort(Env env) {
    return false;
  }

  @Override
  public String getStepName() {
    return graph == null ? null : graph.state().name();
  }

  /**
   * Writes an empty graph: the record carries the graph once, as its result followed by its parts
   * ({@link #partsToPersist}), or as its result alone (a submission, records written before parts).
   * Records written before that held it in their state as well, length-prefixed; all read back.
   */
  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeInt(GRAPH_IN_RESULT);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    byte[] b = BoundedReads.readBytes(in, "flow graph");
    if (b.length == GRAPH_IN_RESULT) {
      b = getJoinedResult(); // the record's result and parts are set already: read, not set again
      if (b == null) {
        throw new IOException("flow record holds its graph neither in its state nor as its result");
      }
    } else {
      setOwnedResult(b); // an older record: the graph read from its state becomes the result
    }
    graph = FlowGraph.decode(b);
  }
}
