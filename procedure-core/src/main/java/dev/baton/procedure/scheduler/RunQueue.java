package dev.baton.procedure.scheduler;

import java.util.Arrays;

/**
 * The queue of one resource: a growable circular array of procedures, kept inside the queue object
 * itself (one object less to reach per operation than an {@code ArrayDeque}).
 */
final class RunQueue {
  private static final int INITIAL_CAPACITY = 4;
  private final ResourceKey key;
  private final int hash;
  private final FairScheduler.PriorityClass cls;
  // whether the queue is in its priority class' ring of queues to serve
  private boolean inRing;
  private Schedulable[] items = new Schedulable[INITIAL_CAPACITY];
  private int head;
  private int count;

  RunQueue(ResourceKey key, FairScheduler.PriorityClass cls) {
    this.key = key;
    this.hash = key == null ? 0 : RunQueueTable.spread(key.hashCode());
    this.cls = cls;
  }

  ResourceKey key() {
    return key;
  }

  /** The spread hash of its key, where {@link RunQueueTable} places it. */
  int hash() {
    return hash;
  }

  FairScheduler.PriorityClass priorityClass() {
    return cls;
  }

  /** Marks the queue as in its class' ring; false if it already was. */
  boolean enterRing() {
    if (inRing) {
      return false;
    }
    inRing = true;
    return true;
  }

  /** The queue left its class' ring (it ran empty, or the scheduler was cleared). */
  void leaveRing() {
    inRing = false;
  }

  boolean isEmpty() {
    return count == 0;
  }

  void addLast(Schedulable p) {
    if (count == items.length) {
      grow();
    }
    items[(head + count) & (items.length - 1)] = p;
    count++;
  }

  void addFirst(Schedulable p) {
    if (count == items.length) {
      grow();
    }
    head = (head - 1) & (items.length - 1);
    items[head] = p;
    count++;
  }

  Schedulable pollFirst() {
    Schedulable p = items[head];
    items[head] = null;
    head = (head + 1) & (items.length - 1);
    count--;
    return p;
  }

  void clear() {
    Arrays.fill(items, null);
    head = 0;
    count = 0;
  }

  private void grow() {
    Schedulable[] bigger = new Schedulable[items.length * 2];
    for (int i = 0; i < count; i++) {
      bigger[i] = items[(head + i) & (items.length - 1)];
    }
    items = bigger;
    head = 0;
  }
}
