package dev.baton.consensus;

import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.testing.CrashInjectingStore;
import dev.baton.procedure.testing.CrashInjectingStore.Mode;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Store failures for tests, per node, through {@link CrashInjectingStore}: a leader's store wrapped
 * by {@link #wrap} can report its next write as failed after the write was committed (as a write
 * timeout whose entry lands anyway), or fail the first write of every executor the node launches (a
 * failure that persists).
 */
final class StoreFaults {
  private final Map<String, CrashInjectingStore> latest = new ConcurrentHashMap<>();
  private final Set<String> failing = ConcurrentHashMap.newKeySet();

  /** The next write of {@code nodeId}'s running executor lands but is reported failed. */
  void landThenFail(String nodeId) {
    latest.get(nodeId).arm(Mode.AFTER_PERSIST);
  }

  /** Every executor {@code nodeId} runs from now on fails its first write (and stops). */
  void failAlways(String nodeId) {
    failing.add(nodeId);
    latest.get(nodeId).arm(Mode.BEFORE_PERSIST);
  }

  /** A {@link ProcedureNode.Builder#storeDecorator} that applies these faults. */
  ProcedureStore wrap(LeaderContext leader, ProcedureStore store) {
    CrashInjectingStore s = new CrashInjectingStore(store);
    if (failing.contains(leader.nodeId())) {
      s.arm(Mode.BEFORE_PERSIST);
    }
    latest.put(leader.nodeId(), s);
    return s;
  }
}
