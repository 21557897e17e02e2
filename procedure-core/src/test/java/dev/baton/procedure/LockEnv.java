package dev.baton.procedure;

import dev.baton.procedure.scheduler.LockEnvironment;
import dev.baton.procedure.scheduler.LockManager;
import dev.baton.procedure.scheduler.LockMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The world of {@link LockStep} procedures: the lock manager they lock through, a journal of what
 * ran, the interval of every step on every resource it locked (logical times from one counter),
 * gates that hold a step until opened, and per-type counts of steps running now.
 */
final class LockEnv implements LockEnvironment {
  /** One step (or rollback step) of a procedure on one resource it had locked. */
  record Interval(String proc, String resource, LockMode mode, long start, long end, int step) {
    static final int ROLLBACK = -1;
  }

  final LockManager locks = new LockManager();
  final AtomicLong clock = new AtomicLong();
  final AtomicLong steps = new AtomicLong();
  final ConcurrentLinkedQueue<Interval> intervals = new ConcurrentLinkedQueue<>();
  final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> acquireCalls = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> runningByType = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> maxRunningByType = new ConcurrentHashMap<>();

  /** Step names that fail while their counter is positive. */
  final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();

  private final List<String> journal = new ArrayList<>();

  @Override
  public LockManager lockManager() {
    return locks;
  }

  synchronized void record(String event) {
    journal.add(event);
  }

  synchronized List<String> journal() {
    return new ArrayList<>(journal);
  }

  /** Index of {@code event} in the journal, -1 if absent. */
  synchronized int indexOf(String event) {
    return journal.indexOf(event);
  }

  CountDownLatch gate(String name) {
    return gates.computeIfAbsent(name, n -> new CountDownLatch(1));
  }

  void open(String name) {
    gate(name).countDown();
  }

  int acquireCalls(String proc) {
    AtomicInteger n = acquireCalls.get(proc);
    return n == null ? 0 : n.get();
  }

  int maxRunning(String type) {
    AtomicInteger n = maxRunningByType.get(type);
    return n == null ? 0 : n.get();
  }

  void failNext(String step, int times) {
    failures.put(step, new AtomicInteger(times));
  }

  boolean shouldFail(String step) {
    AtomicInteger n = failures.get(step);
    return n != null && n.getAndDecrement() > 0;
  }

  /** Runs {@code body} as a step of {@code type}: counts it as running, waits for its gate. */
  void awaitGate(String gate) throws InterruptedException {
    if (gate != null && !gate.isEmpty() && !gate(gate).await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("gate " + gate + " was never opened");
    }
  }

  void stepStarted(String type) {
    int now = runningByType.computeIfAbsent(type, t -> new AtomicInteger()).incrementAndGet();
    maxRunningByType
        .computeIfAbsent(type, t -> new AtomicInteger())
        .accumulateAndGet(now, Math::max);
  }

  void stepEnded(String type) {
    runningByType.get(type).decrementAndGet();
  }
}
