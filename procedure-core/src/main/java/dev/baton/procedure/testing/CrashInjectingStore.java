package dev.baton.procedure.testing;

import dev.baton.procedure.store.ForwardingProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store wrapper that simulates a crash around one write, driven from outside the executor: when
 * armed, the next write either fails without being applied ({@link Mode#BEFORE_PERSIST}: the step
 * ran but its outcome was lost) or is applied and then fails ({@link Mode#AFTER_PERSIST}: the
 * outcome is durable but the executor never learns it). Either way the executor stops itself, as it
 * does on any store failure, and a restart on the wrapped store recovers.
 */
public final class CrashInjectingStore extends ForwardingProcedureStore {

  /** Where the simulated crash falls. */
  public enum Mode {
    BEFORE_PERSIST,
    AFTER_PERSIST
  }

  /** The exception a simulated crash raises. */
  public static final class SimulatedCrashException extends IOException {
    SimulatedCrashException(Mode mode, int write) {
      super("simulated crash " + mode + " at write " + write);
    }
  }

  private final AtomicInteger writes = new AtomicInteger();
  private volatile Mode armed;
  private int skip;

  public CrashInjectingStore(ProcedureStore delegate) {
    super(delegate);
  }

  /** Makes the next write crash in {@code mode}; only one write crashes per arming. */
  public void arm(Mode mode) {
    arm(mode, 0);
  }

  /** Lets {@code skipWrites} writes pass, then makes the next one crash in {@code mode}. */
  public synchronized void arm(Mode mode, int skipWrites) {
    if (skipWrites < 0) {
      throw new IllegalArgumentException("skipWrites must be >= 0, got " + skipWrites);
    }
    this.armed = mode;
    this.skip = skipWrites;
  }

  public synchronized void disarm() {
    this.armed = null;
  }

  /** Whether an armed crash has not happened yet. */
  public boolean isArmed() {
    return armed != null;
  }

  /** Writes that reached this store (crashed or not). */
  public int writeCount() {
    return writes.get();
  }

  @Override
  public void write(StoreBatch batch) throws IOException {
    int n = writes.incrementAndGet();
    Mode mode = takeCrash();
    if (mode == Mode.BEFORE_PERSIST) {
      throw new SimulatedCrashException(mode, n);
    }
    delegate.write(batch);
    if (mode == Mode.AFTER_PERSIST) {
      throw new SimulatedCrashException(mode, n);
    }
  }

  /** The same crashes, on the wrapped store's {@code writeAsync} (pipelined writes). */
  @Override
  public CompletableFuture<Void> writeAsync(StoreBatch batch) {
    int n = writes.incrementAndGet();
    Mode mode = takeCrash();
    if (mode == Mode.BEFORE_PERSIST) {
      return CompletableFuture.failedFuture(new SimulatedCrashException(mode, n));
    }
    CompletableFuture<Void> durable = delegate.writeAsync(batch);
    if (mode != Mode.AFTER_PERSIST) {
      return durable;
    }
    return durable.thenCompose(
        ok -> CompletableFuture.failedFuture(new SimulatedCrashException(mode, n)));
  }

  /** Id reservations are the wrapped store's (a replicated store reserves through its log). */
  @Override
  public long reserveProcIds(long highestKnown, int count) throws IOException {
    return delegate.reserveProcIds(highestKnown, count);
  }

  /** The mode of a crash due at this write, or null. */
  private synchronized Mode takeCrash() {
    if (armed != null && skip > 0) {
      skip--;
      return null;
    }
    Mode mode = armed;
    armed = null;
    return mode;
  }
}
