package dev.baton.procedure.scheduler;

import java.util.Arrays;

/**
 * The non-empty resource queues by key: open addressing with linear probing over the queues
 * themselves (no entry objects: one memory access less per lookup than a {@code HashMap} with
 * 10,000 queues), at most half full, backward-shift deletion.
 */
final class RunQueueTable {
  private static final int INITIAL_CAPACITY = 64;
  private RunQueue[] slots = new RunQueue[INITIAL_CAPACITY];
  private int size;

  static int spread(int h) {
    return h ^ (h >>> 16);
  }

  RunQueue get(ResourceKey key) {
    int h = spread(key.hashCode());
    int mask = slots.length - 1;
    for (int i = h & mask; ; i = (i + 1) & mask) {
      RunQueue q = slots[i];
      if (q == null) {
        return null;
      }
      if (q.hash() == h && (q.key() == key || q.key().equals(key))) {
        return q;
      }
    }
  }

  void add(RunQueue q) {
    if ((size + 1) * 2 > slots.length) {
      RunQueue[] old = slots;
      slots = new RunQueue[old.length * 2];
      for (RunQueue r : old) {
        if (r != null) {
          insert(r);
        }
      }
    }
    insert(q);
    size++;
  }

  private void insert(RunQueue q) {
    int mask = slots.length - 1;
    int i = q.hash() & mask;
    while (slots[i] != null) {
      i = (i + 1) & mask;
    }
    slots[i] = q;
  }

  void remove(RunQueue q) {
    int mask = slots.length - 1;
    int i = q.hash() & mask;
    while (slots[i] != q) {
      i = (i + 1) & mask;
    }
    // shift back later entries of the probe run that may no longer be reachable
    int hole = i;
    for (int j = (i + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
      int home = slots[j].hash() & mask;
      boolean reachable = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!reachable) {
        slots[hole] = slots[j];
        hole = j;
      }
    }
    slots[hole] = null;
    size--;
  }

  /** How many queues the table holds. */
  int size() {
    return size;
  }

  void clear() {
    Arrays.fill(slots, null);
    size = 0;
  }
}
