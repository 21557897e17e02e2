package dev.baton.procedure;

import dev.baton.procedure.scheduler.LockMode;
import dev.baton.procedure.scheduler.LockOutcome;
import dev.baton.procedure.scheduler.LockRequest;
import dev.baton.procedure.scheduler.ResourceKey;
import dev.baton.procedure.scheduler.ResourceProcedure;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A test procedure that locks resources through {@link LockEnv#locks}: {@code steps} steps, each
 * recording its interval on every locked resource; optionally holds its locks across steps, yields
 * after each step, fails at a step, spawns children at a step, waits at a gate in its first step,
 * parks in WAITING_TIMEOUT after its first step, and limits its lock wait.
 */
public class LockStep extends Procedure<LockEnv> implements ResourceProcedure {
  /** One requested lock: "node:n1", "database:db1" or "region:db1/r1" and a mode. */
  record Lock(String resource, LockMode mode) {
    ResourceKey key() {
      String[] kv = resource.split(":", 2);
      return switch (kv[0]) {
        case "node" -> ResourceKey.node(kv[1]);
        case "database" -> ResourceKey.database(kv[1]);
        case "region" -> {
          String[] dr = kv[1].split("/", 2);
          yield ResourceKey.region(dr[0], dr[1]);
        }
        default -> throw new IllegalArgumentException(resource);
      };
    }
  }

  String name = "";
  List<Lock> locks = new ArrayList<>();
  int steps = 1;
  int done;
  boolean hold;
  boolean yield;
  int failAt = -1;
  int childAt = -1;
  List<LockStep> children = new ArrayList<>();
  String gate = "";
  long waitAfterFirstMillis = -1;
  long lockWaitTimeoutMillis;

  /** Take the locks one {@code acquire} call at a time, in the order given (not one request). */
  boolean oneByOne;

  private transient LockRequest request;

  public LockStep() {}

  LockStep(String name) {
    this.name = name;
  }

  LockStep lock(String resource, LockMode mode) {
    locks.add(new Lock(resource, mode));
    request = null;
    return this;
  }

  LockStep exclusive(String resource) {
    return lock(resource, LockMode.EXCLUSIVE);
  }

  LockStep shared(String resource) {
    return lock(resource, LockMode.SHARED);
  }

  LockStep steps(int n) {
    this.steps = n;
    return this;
  }

  LockStep hold() {
    this.hold = true;
    return this;
  }

  LockStep yielding() {
    this.yield = true;
    return this;
  }

  LockStep failAt(int step) {
    this.failAt = step;
    return this;
  }

  LockStep childrenAt(int step, List<LockStep> kids) {
    this.childAt = step;
    this.children = new ArrayList<>(kids);
    return this;
  }

  LockStep gate(String gateName) {
    this.gate = gateName;
    return this;
  }

  LockStep waitAfterFirst(long millis) {
    this.waitAfterFirstMillis = millis;
    return this;
  }

  LockStep oneByOne() {
    this.oneByOne = true;
    return this;
  }

  LockStep lockWaitTimeout(long millis) {
    this.lockWaitTimeoutMillis = millis;
    request = null;
    return this;
  }

  LockRequest request() {
    if (request == null && !locks.isEmpty()) {
      LockRequest.Builder b = LockRequest.builder();
      for (Lock l : locks) {
        b.add(l.key(), l.mode());
      }
      request = b.waitTimeout(Duration.ofMillis(lockWaitTimeoutMillis)).build();
    }
    return request;
  }

  @Override
  public ResourceKey schedulingResource() {
    return locks.isEmpty() ? null : locks.get(0).key();
  }

  @Override
  protected LockState acquireLock(LockEnv env) {
    env.acquireCalls
        .computeIfAbsent(name, n -> new java.util.concurrent.atomic.AtomicInteger())
        .incrementAndGet();
    if (oneByOne) {
      for (Lock l : locks) {
        LockRequest single = LockRequest.builder().add(l.key(), l.mode()).build();
        if (env.locks.acquire(this, single) != LockOutcome.ACQUIRED) {
          return LockState.LOCK_EVENT_WAIT;
        }
      }
      return LockState.LOCK_ACQUIRED;
    }
    LockRequest r = request();
    return r == null ? LockState.LOCK_ACQUIRED : LockState.from(env.locks.acquire(this, r));
  }

  @Override
  protected void releaseLock(LockEnv env) {
    env.locks.release(this);
  }

  @Override
  protected boolean holdLock(LockEnv env) {
    return hold;
  }

  @Override
  protected boolean isYieldAfterExecution(LockEnv env) {
    return yield;
  }

  @Override
  protected Procedure<LockEnv>[] execute(LockEnv env) throws InterruptedException {
    int step = done;
    if (step >= steps) {
      return null; // its children finished after its last step
    }
    env.stepStarted(getType());
    try {
      long start = env.clock.incrementAndGet();
      env.record("exec " + name + ":" + step);
      if (step == 0) {
        env.awaitGate(gate);
      }
      Thread.yield();
      long end = env.clock.incrementAndGet();
      recordIntervals(env, start, end, step);
      env.steps.incrementAndGet();
    } finally {
      env.stepEnded(getType());
    }
    if (step == failAt || env.shouldFail(name + ":" + step)) {
      throw new IllegalStateException("injected failure at step " + step + " of " + name);
    }
    done = step + 1;
    if (step == 0 && waitAfterFirstMillis >= 0) {
      waitTimeout(waitAfterFirstMillis);
    }
    if (step == childAt && !children.isEmpty()) {
      @SuppressWarnings("unchecked")
      Procedure<LockEnv>[] kids = new Procedure[children.size()];
      for (int i = 0; i < kids.length; i++) {
        kids[i] = children.get(i).copy();
      }
      return kids; // the parent runs its remaining steps (if any) after them
    }
    if (done < steps) {
      @SuppressWarnings("unchecked")
      Procedure<LockEnv>[] again = new Procedure[] {this};
      return again;
    }
    return null;
  }

  @Override
  protected void rollback(LockEnv env) {
    long start = env.clock.incrementAndGet();
    env.record("rollback " + name);
    Thread.yield();
    long end = env.clock.incrementAndGet();
    recordIntervals(env, start, end, LockEnv.Interval.ROLLBACK);
  }

  private void recordIntervals(LockEnv env, long start, long end, int step) {
    LockRequest r = request();
    if (r == null) {
      return;
    }
    for (LockRequest.Item item : r.items()) {
      env.intervals.add(
          new LockEnv.Interval(name, item.key().toString(), item.mode(), start, end, step));
    }
  }

  @Override
  protected boolean abort(LockEnv env) {
    return true;
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(name);
    out.writeInt(locks.size());
    for (Lock l : locks) {
      out.writeUTF(l.resource());
      out.writeBoolean(l.mode() == LockMode.EXCLUSIVE);
    }
    out.writeInt(steps);
    out.writeInt(done);
    out.writeBoolean(hold);
    out.writeBoolean(yield);
    out.writeInt(failAt);
    out.writeInt(childAt);
    out.writeInt(children.size());
    for (LockStep c : children) {
      byte[] b = c.bytes();
      out.writeInt(b.length);
      out.write(b);
    }
    out.writeUTF(gate);
    out.writeLong(waitAfterFirstMillis);
    out.writeLong(lockWaitTimeoutMillis);
    out.writeBoolean(oneByOne);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    name = in.readUTF();
    int n = in.readInt();
    locks = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String resource = in.readUTF();
      locks.add(new Lock(resource, in.readBoolean() ? LockMode.EXCLUSIVE : LockMode.SHARED));
    }
    steps = in.readInt();
    done = in.readInt();
    hold = in.readBoolean();
    yield = in.readBoolean();
    failAt = in.readInt();
    childAt = in.readInt();
    int kids = in.readInt();
    children = new ArrayList<>(kids);
    for (int i = 0; i < kids; i++) {
      byte[] b = new byte[in.readInt()];
      in.readFully(b);
      LockStep c = new LockStep();
      c.deserializeStateData(new DataInputStream(new ByteArrayInputStream(b)));
      children.add(c);
    }
    gate = in.readUTF();
    waitAfterFirstMillis = in.readLong();
    lockWaitTimeoutMillis = in.readLong();
    oneByOne = in.readBoolean();
    request = null;
  }

  private byte[] bytes() throws IOException {
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    serializeStateData(new DataOutputStream(bos));
    return bos.toByteArray();
  }

  /** A fresh, unsubmitted copy of this specification (same class). */
  LockStep copy() {
    try {
      LockStep c = getClass().getDeclaredConstructor().newInstance();
      c.deserializeStateData(new DataInputStream(new ByteArrayInputStream(bytes())));
      c.done = 0;
      return c;
    } catch (ReflectiveOperationException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The same procedure registered as another type, for per-type limits. */
  public static class Limited extends LockStep {
    public Limited() {}

    Limited(String name) {
      super(name);
    }
  }

  static ProcedureRegistry registry() {
    return new ProcedureRegistry()
        .register("LockStep", LockStep.class, LockStep::new)
        .register("Limited", Limited.class, Limited::new);
  }
}
