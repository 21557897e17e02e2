package dev.baton.procedure.flow;

import dev.baton.procedure.BoundedReads;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An operator command (resume a node, append stream nodes) made durable as a procedure: it posts
 * itself to its flow until the flow has applied it in a persisted step, then finishes with the
 * outcome as its result ({@link #OK} or the refusal). After a restart it posts again; the flow
 * remembers what it applied, so a command takes effect once.
 */
final class FlowCommandProcedure<Env> extends Procedure<Env> {
  /** Result of an applied command. */
  static final String OK = "";

  private final FlowRuntime<Env> runtime;
  private long flowId;
  private FlowCommand.Kind kind;
  private String node = "";
  private ResumeAction action = ResumeAction.RERUN;
  private List<NodeSpec> nodes = List.of();

  FlowCommandProcedure(FlowRuntime<Env> runtime) {
    this.runtime = runtime;
  }

  static <Env> FlowCommandProcedure<Env> resume(
      FlowRuntime<Env> runtime, long flowId, String node, ResumeAction action) {
    FlowCommandProcedure<Env> c = new FlowCommandProcedure<>(runtime);
    c.flowId = flowId;
    c.kind = FlowCommand.Kind.RESUME;
    c.node = node;
    c.action = action;
    return c;
  }

  static <Env> FlowCommandProcedure<Env> append(
      FlowRuntime<Env> runtime, long flowId, String streamKey, List<NodeSpec> nodes) {
    FlowCommandProcedure<Env> c = new FlowCommandProcedure<>(runtime);
    c.flowId = flowId;
    c.kind = FlowCommand.Kind.APPEND;
    c.node = streamKey;
    c.nodes = List.copyOf(nodes);
    return c;
  }

  @Override
  @SuppressWarnings("unchecked")
  protected Procedure<Env>[] execute(Env env) {
    String outcome = runtime.mailbox().takeOutcome(getProcId());
    if (outcome != null) {
      setResult(outcome.getBytes(StandardCharsets.UTF_8));
      return null;
    }
    Optional<ProcedureExecutor<Env>> ex = runtime.executor();
    if (ex.isPresent()) {
      Optional<ProcedureInfo> flow = ex.get().getInfo(flowId);
      if (flow.isEmpty()
          || flow.get().finished()
          || !FlowRuntime.FLOW_TYPE.equals(flow.get().type())) {
        String why =
            flow.isEmpty() || !FlowRuntime.FLOW_TYPE.equals(flow.get().type())
                ? "no flow " + flowId
                : "flow " + flowId + " is finished: none of its nodes is PENDING any more";
        setResult(why.getBytes(StandardCharsets.UTF_8));
        return null;
      }
      runtime.mailbox().post(new FlowCommand(getProcId(), flowId, kind, node, action, nodes));
      ex.get().wake(flowId);
    }
    waitTimeout(runtime.pollMillis());
    return new Procedure[] {this};
  }

  /** The outcome of a finished command: {@link #OK}, or why it was refused. */
  static String outcomeOf(ProcedureInfo info) {
    byte[] r = info.result();
    if (r == null) {
      return "command " + info.procId() + " ended without an outcome (" + info.failure() + ")";
    }
    return new String(r, StandardCharsets.UTF_8);
  }

  /** Finished and persisted: the flow may now forget it (and a finite flow may end). */
  @Override
  protected void completionCleanup(Env env) {
    runtime.executor().ifPresent(ex -> ex.wake(flowId));
  }

  @Override
  protected boolean setTimeoutFailure(Env env) {
    return false; // an expired wait is a poll
  }

  @Override
  protected void rollback(Env env) {
    // changes nothing itself; the flow applies it
  }

  @Override
  protected boolean abort(Env env) {
    return false;
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeLong(flowId);
    out.writeByte(kind.ordinal());
    out.writeUTF(node);
    out.writeByte(action.ordinal());
    out.writeInt(nodes.size());
    for (NodeSpec n : nodes) {
      NodeSpecCodec.write(out, n);
    }
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    flowId = in.readLong();
    kind = FlowCommand.Kind.values()[in.readByte()];
    node = in.readUTF();
    action = ResumeAction.values()[in.readByte()];
    int n = BoundedReads.readCount(in, NodeSpecCodec.MIN_SPEC_BYTES, "flow command nodes");
    List<NodeSpec> specs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      specs.add(NodeSpecCodec.read(in));
    }
    nodes = specs;
  }
}
