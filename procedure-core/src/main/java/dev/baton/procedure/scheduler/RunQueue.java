package dev.baton.procedure.scheduler;

import java.util.Arrays;

/**
 * The queue of one resource: a growable circular array of procedures, kept inside the queue object
 * itself (one object less to reach per operation than an {@code ArrayDeque}).
 */
final class RunQueue {
  private static final int INITIAL_CAPACITY = 4;
  final ResourceKey key;
  final int hash;
  final FairScheduler.PriorityClass cls;
  boolean inRing;
  private Schedulable[] items = new Schedulable[INITIAL_CAPACITY];
  private int head;
  private int count;

  RunQueue(ResourceKey key, FairScheduler.PriorityClass cls) {
    this.key = key;
    this.hash = key == null ? 0 : RunQueueTable.spread(key.hashCode());
    this.cls = cls;
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
