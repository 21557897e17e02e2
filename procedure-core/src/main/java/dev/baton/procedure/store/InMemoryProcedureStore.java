package dev.baton.procedure.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A store in memory. Its contents outlive {@link #stop()}: passing the same instance to a new
 * executor simulates a restart with a durable store.
 */
public final class InMemoryProcedureStore implements ProcedureStore {
  private final ConcurrentSkipListMap<Long, StoreRecord> records = new ConcurrentSkipListMap<>();
  private final Object writeLock = new Object();
  private volatile long maxProcId;
  private volatile boolean running;

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public StoreContents load() throws IOException {
    ensureRunning();
    synchronized (writeLock) {
      return new StoreContents(new ArrayList<>(records.values()), maxProcId);
    }
  }

  @Override
  public void write(StoreBatch batch) throws IOException {
    synchronized (writeLock) {
      ensureRunning();
      checkDeltas(batch);
      for (StoreRecord r : batch.upserts()) {
        records.put(r.procId(), r.appliedTo(records.get(r.procId())));
      }
      for (int i = 0; i < batch.deleteCount(); i++) {
        records.remove(batch.deleteAt(i));
      }
      maxProcId = Math.max(maxProcId, batch.maxProcId());
    }
  }

  /** Refuses a batch with a parts delta for a record neither stored nor written whole before it. */
  private void checkDeltas(StoreBatch batch) throws IOException {
    Set<Long> whole = null;
    for (StoreRecord r : batch.upserts()) {
      if (!r.isDelta()) {
        if (whole != null) {
          whole.add(r.procId());
        }
        continue;
      }
      if (whole == null) {
        whole = new HashSet<>();
        for (StoreRecord earlier : batch.upserts()) {
          if (earlier == r) {
            break;
          }
          if (!earlier.isDelta()) {
            whole.add(earlier.procId());
          }
        }
      }
      if (!records.containsKey(r.procId()) && !whole.contains(r.procId())) {
        throw new IOException(
            "a parts delta for procedure " + r.procId() + ", of which the store holds no record");
      }
    }
  }

  /** Number of live records, for tests and diagnostics. */
  public int size() {
    return records.size();
  }

  private void ensureRunning() throws IOException {
    if (!running) {
      throw new StoreStoppedException("in-memory procedure store is not running");
    }
  }
}
