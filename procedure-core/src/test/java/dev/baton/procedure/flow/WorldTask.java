package dev.baton.procedure.flow;

import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureRegistry;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** A one-step task for flow tests: records its run, may wait on a gate, may fail. */
final class WorldTask extends Procedure<FlowWorld> {
  static final String TYPE = "world-task";

  private String name = "";

  WorldTask() {}

  WorldTask(Map<String, String> args) {
    this.name = args.getOrDefault("name", "");
  }

  static ProcedureRegistry registry() {
    return new ProcedureRegistry().register(TYPE, WorldTask.class, WorldTask::new);
  }

  /** A runtime on a fresh registry, with this task and the "p1-succeeded" predicate. */
  static FlowRuntime<FlowWorld> runtime(ProcedureRegistry registry) {
    return new FlowRuntime<FlowWorld>(registry)
        .task(TYPE, WorldTask::new)
        .predicate("p1-succeeded", parents -> parents.get("P1") == NodeState.SUCCESS);
  }

  static NodeSpec node(String name) {
    return NodeSpec.of(name, TYPE).withArgs(Map.of("name", name));
  }

  @Override
  @SuppressWarnings("unchecked")
  protected Procedure<FlowWorld>[] execute(FlowWorld env) throws InterruptedException {
    int now = env.running.incrementAndGet();
    env.maxRunning.accumulateAndGet(now, Math::max);
    try {
      env.record(name);
      CountDownLatch started = env.started.get(name);
      if (started != null) {
        started.countDown();
      }
      CountDownLatch gate = env.gates.get(name);
      if (gate != null) {
        gate.await();
      }
      AtomicInteger fail = env.failures.get(name);
      if (fail != null && fail.getAndDecrement() > 0) {
        throw new IllegalStateException("injected failure of task " + name);
      }
      return null;
    } finally {
      env.running.decrementAndGet();
    }
  }

  @Override
  protected void rollback(FlowWorld env) {}

  @Override
  protected boolean abort(FlowWorld env) {
    return false;
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(name);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    name = in.readUTF();
  }
}
