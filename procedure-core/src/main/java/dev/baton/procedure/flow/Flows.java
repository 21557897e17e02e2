package dev.baton.procedure.flow;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureInfo;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * The Java API of workflows over the executor bound to a {@link FlowRuntime}: submit a finite flow,
 * append to a stream flow, query a flow with all its nodes, resume a PENDING node. Every change is
 * a procedure (the flow, or a command the flow applies), so it is as durable as any procedure.
 *
 * @param <Env> the environment of the executor
 */
public final class Flows<Env> {
  /** Longest scene of a stream flow. */
  public static final int MAX_SCENE_LENGTH = 30;

  /** Longest group of a stream flow. */
  public static final int MAX_GROUP_LENGTH = 100;

  /** Most nodes one append may carry. */
  public static final int MAX_APPEND = 10_000;

  /** Nonce group of stream flows: one live stream flow per scene and group. */
  static final long STREAM_NONCE_GROUP = Long.MIN_VALUE;

  private static final long HASH_OFFSET = 0xcbf29ce484222325L;
  private static final long HASH_PRIME = 0x100000001b3L;

  private final FlowRuntime<Env> runtime;
  private final FlowGateway<Env> gateway;
  private final Duration commandTimeout;

  /**
   * @param commandTimeout how long {@link #resume} and {@link #append} wait for the flow to apply
   *     them
   */
  public Flows(FlowRuntime<Env> runtime, Duration commandTimeout) {
    this(runtime, FlowGateway.of(runtime::executor), commandTimeout);
  }

  /** Flows reached through {@code gateway} (e.g. a cluster node forwarding to its leader). */
  public Flows(FlowRuntime<Env> runtime, FlowGateway<Env> gateway, Duration commandTimeout) {
    this.runtime = runtime;
    this.gateway = gateway;
    this.commandTimeout = commandTimeout;
  }

  /**
   * The flow view held by a flow procedure's info (as of its last persisted step), e.g. read on any
   * node of a cluster.
   *
   * @throws IllegalArgumentException if the procedure is not a flow
   */
  public static FlowInfo view(ProcedureInfo info) {
    if (!FlowRuntime.FLOW_TYPE.equals(info.type())) {
      throw new IllegalArgumentException(
          "procedure " + info.procId() + " is a " + info.type() + ", not a flow");
    }
    return FlowProcedure.view(info);
  }

  /**
   * Submits a finite flow; returns its id (a procId).
   *
   * @throws InvalidFlowException for an unknown task type or predicate; nothing is submitted
   */
  public long submit(FlowDefinition def) {
    return submit(def, null);
  }

  /** As {@link #submit(FlowDefinition)}; the same nonce returns the same flow. */
  public long submit(FlowDefinition def, NonceKey nonce) {
    runtime.checkKnown(def.nodes());
    return gateway.submit(FlowProcedure.finite(runtime, def), nonce);
  }

  /** The flow as of its last persisted step; empty if unknown (or past retention). */
  public Optional<FlowInfo> get(long flowId) {
    Optional<ProcedureInfo> info = gateway.getInfo(flowId);
    if (info.isEmpty() || !FlowRuntime.FLOW_TYPE.equals(info.get().type())) {
      return Optional.empty();
    }
    return Optional.of(FlowProcedure.view(info.get()));
  }

  /** Waits until a finite flow finished; returns its final view. */
  public FlowInfo await(long flowId, Duration timeout)
      throws TimeoutException, InterruptedException {
    return FlowProcedure.view(gateway.await(flowId, timeout));
  }

  /**
   * Resumes a PENDING node once the flow applied it. Repeating the same action for the same
   * suspension returns the first one's outcome (a command with the same nonce) while that command
   * is retained; another action on a node that is no longer PENDING is refused.
   *
   * @throws InvalidFlowException for an unknown flow or node, or a node that is not PENDING
   */
  public FlowInfo resume(long flowId, String node, ResumeAction action)
      throws TimeoutException, InterruptedException {
    FlowInfo flow =
        get(flowId).orElseThrow(() -> new InvalidFlowException("no flow with id " + flowId));
    int index = indexOf(flow, node);
    FlowInfo.NodeInfo n = flow.nodes().get(index);
    if (n.suspensions() == 0 && n.state() == NodeState.PENDING) {
      throw new InvalidFlowException(
          "node '"
              + node
              + "' of flow "
              + flowId
              + " is shown PENDING because it "
              + n.detail()
              + "; resume that node");
    }
    if (n.suspensions() == 0) {
      throw new InvalidFlowException(
          "node '" + node + "' of flow " + flowId + " is " + n.state() + ", not PENDING");
    }
    long cmd =
        gateway.submit(
            FlowCommandProcedure.resume(runtime, flowId, node, action),
            FlowProcedure.resumeNonce(
                flowId, flow.folded().nodes() + index, n.suspensions(), action));
    awaitCommand(cmd);
    return get(flowId).orElseThrow();
  }

  /**
   * Appends nodes to the stream flow of {@code scene} and {@code group} (started on first use);
   * returns once they are durably in the flow, in the given order. Concurrent appends are
   * serialized by the flow: the chain never forks.
   *
   * @return the stream flow's id
   * @throws InvalidFlowException for a bad scene or group, an unknown type, a taken node name, or
   *     an ended stream; nothing is appended
   */
  public long append(String scene, String group, List<NodeSpec> nodes)
      throws TimeoutException, InterruptedException {
    checkStreamKey(scene, group);
    if (nodes.isEmpty() || nodes.size() > MAX_APPEND) {
      throw new InvalidFlowException(
          "an append carries 1.." + MAX_APPEND + " nodes, got " + nodes.size());
    }
    runtime.checkKnown(nodes);
    long flowId =
        gateway.submit(FlowProcedure.stream(runtime, scene, group), streamNonce(scene, group));
    awaitCommand(
        gateway.submit(
            FlowCommandProcedure.append(
                runtime, flowId, FlowProcedure.streamKey(scene, group), nodes),
            null));
    return flowId;
  }

  /** The id of the live stream flow of {@code scene} and {@code group}, if any. */
  public Optional<Long> streamId(String scene, String group) {
    checkStreamKey(scene, group);
    return gateway.list().stream()
        .filter(i -> FlowRuntime.FLOW_TYPE.equals(i.type()) && !i.finished())
        .filter(
            i -> {
              FlowInfo f = FlowProcedure.view(i);
              return f.kind() == FlowInfo.Kind.STREAM
                  && f.scene().equals(scene)
                  && f.group().equals(group);
            })
        .map(ProcedureInfo::procId)
        .findFirst();
  }

  static void checkStreamKey(String scene, String group) {
    if (scene == null || scene.isBlank() || scene.length() > MAX_SCENE_LENGTH) {
      throw new InvalidFlowException(
          "stream scene must be 1.." + MAX_SCENE_LENGTH + " characters, got '" + scene + "'");
    }
    if (group == null || group.isBlank() || group.length() > MAX_GROUP_LENGTH) {
      throw new InvalidFlowException(
          "stream group must be 1.." + MAX_GROUP_LENGTH + " characters, got '" + group + "'");
    }
  }

  /** FNV-1a over scene, a separator and group; the flow checks the key on every append. */
  static NonceKey streamNonce(String scene, String group) {
    long h = HASH_OFFSET;
    for (byte b : (scene + '\u0000' + group).getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= HASH_PRIME;
    }
    return new NonceKey(STREAM_NONCE_GROUP, h);
  }

  private static int indexOf(FlowInfo flow, String node) {
    for (int i = 0; i < flow.nodes().size(); i++) {
      if (flow.nodes().get(i).name().equals(node)) {
        return i;
      }
    }
    throw new InvalidFlowException("flow " + flow.flowId() + " has no node '" + node + "'");
  }

  private void awaitCommand(long cmd) throws TimeoutException, InterruptedException {
    String outcome = FlowCommandProcedure.outcomeOf(gateway.await(cmd, commandTimeout));
    if (!FlowCommandProcedure.OK.equals(outcome)) {
      throw new InvalidFlowException(outcome);
    }
  }
}
