package dev.baton.consensus;

import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.StateMachineProcedure;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * A three-state test procedure (PREPARE, APPLY, COMMIT). Each step and each rollback is journaled
 * in the {@link World} with the executing leader's term; a step with a gate waits on it
 * (interruptibly). A Work made with a {@code failAt} state fails in that state, after journaling
 * it, so it rolls back. Aborts are accepted (the {@link StateMachineProcedure} default: every state
 * supports rollback).
 */
public class Work extends StateMachineProcedure<Work.Env, Work.S> {
  enum S {
    PREPARE,
    APPLY,
    COMMIT
  }

  /** What a leader executor gives its procedures. */
  record Env(World world, LeaderContext leader) {}

  /**
   * Gates on decoding a procedure by name: a decode of a procedure whose name has a gate waits
   * until the gate opens (as a slow deserializer would).
   */
  static final Map<String, CountDownLatch> DECODE_GATES = new ConcurrentHashMap<>();

  String name = "";

  /** The state whose step fails, or null. */
  S failAt;

  public Work() {}

  Work(String name) {
    this.name = name;
  }

  Work(String name, S failAt) {
    this.name = name;
    this.failAt = failAt;
  }

  @Override
  protected Flow executeFromState(Env env, S state) throws InterruptedException {
    String key = name + ":" + state;
    CountDownLatch reached = env.world().reached.get(key);
    if (reached != null) {
      reached.countDown();
    }
    CountDownLatch gate = env.world().gates.get(key);
    if (gate != null) {
      gate.await();
    }
    env.world().record(step(env, state));
    if (state == failAt) {
      throw new IllegalStateException("planned failure of " + name + " in " + state);
    }
    switch (state) {
      case PREPARE -> setNextState(S.APPLY);
      case APPLY -> setNextState(S.COMMIT);
      case COMMIT -> {
        return Flow.NO_MORE_STATE;
      }
    }
    return Flow.HAS_MORE_STATE;
  }

  @Override
  protected void rollbackState(Env env, S state) {
    env.world().recordRollback(step(env, state));
  }

  private World.Step step(Env env, S state) {
    return new World.Step(
        getProcId(), name, state.name(), env.leader().term(), env.leader().nodeId());
  }

  @Override
  protected S getState(int stateId) {
    return S.values()[stateId];
  }

  @Override
  protected int getStateId(S state) {
    return state.ordinal();
  }

  @Override
  protected S getInitialState() {
    return S.PREPARE;
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(name);
    out.writeInt(failAt == null ? -1 : failAt.ordinal());
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    name = in.readUTF();
    CountDownLatch gate = DECODE_GATES.get(name);
    if (gate != null) {
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("decode of " + name + " interrupted");
      }
    }
    int f = in.readInt();
    failAt = f < 0 ? null : S.values()[f];
  }

  static ProcedureRegistry registry() {
    return new ProcedureRegistry()
        .register("Work", Work.class, Work::new)
        .register("Tree", Tree.class, Tree::new);
  }
}
