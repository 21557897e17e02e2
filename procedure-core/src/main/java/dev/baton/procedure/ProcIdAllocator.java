package dev.baton.procedure;

import dev.baton.procedure.store.ProcedureStore;
import java.io.IOException;

/**
 * Hands out procedure ids from blocks the store reserves ({@link ProcedureStore#reserveProcIds}). A
 * local store grants the ids after the highest one it knows; a replicated store reserves the block
 * through its log, so ids allocated by the leader's executor never collide with ids the replicated
 * state machine gives to submissions from other nodes.
 */
final class ProcIdAllocator {
  /** Ids reserved from the store at once. */
  static final int BLOCK_SIZE = 1024;

  private final ProcedureStore store;
  private long next;
  private long end;
  private long highest;

  ProcIdAllocator(ProcedureStore store) {
    this.store = store;
  }

  /** Sets the highest id known to be used (from recovery); the next block starts after it. */
  synchronized void reset(long highestUsed) {
    highest = Math.max(highest, highestUsed);
    next = 0;
    end = 0;
  }

  /** A fresh id, never handed out before (by this executor or any earlier one on the store). */
  synchronized long next() throws IOException {
    if (next >= end) {
      long first = store.reserveProcIds(highest, BLOCK_SIZE);
      if (first <= highest) {
        throw new IOException(
            "store " + store + " reserved ids from " + first + " but " + highest + " is used");
      }
      next = first;
      end = first + BLOCK_SIZE;
    }
    highest = next;
    return next++;
  }

  /** Notes an id allocated elsewhere (a submission adopted from the replicated state). */
  synchronized void observe(long procId) {
    highest = Math.max(highest, procId);
  }

  /** The highest id handed out or observed; recorded with every store write. */
  synchronized long highest() {
    return highest;
  }
}
