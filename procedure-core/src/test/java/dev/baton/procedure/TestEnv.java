package dev.baton.procedure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The world test procedures act on: an ordered journal of what ran, failure switches, and the
 * scripting knobs of {@link ScriptedStep} (children to spawn, gates that hold a step, hooks run
 * when an event is journaled).
 */
final class TestEnv {
  private final List<String> journal = new ArrayList<>();

  /** Step names ("procName:STATE") that fail while their counter is positive. */
  final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();

  /** Children (by name) a {@link ScriptedStep} spawns in a step ("procName:STATE"). */
  final Map<String, List<String>> spawns = new ConcurrentHashMap<>();

  /** Steps that block until their latch is released (see {@link #passGate}). */
  final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

  /** Actions run right after an event was journaled, on the thread that journaled it. */
  final Map<String, Runnable> onRecord = new ConcurrentHashMap<>();

  /** Steps that park in WAITING_TIMEOUT for this many milliseconds after running. */
  final Map<String, Long> waits = new ConcurrentHashMap<>();

  /** Procedure names whose expired waits do not fail them (setTimeoutFailure returns false). */
  final Map<String, Boolean> timeoutIsNotFailure = new ConcurrentHashMap<>();

  /** The procId of each {@link ScriptedStep} by name, as seen when it ran. */
  final Map<String, Long> ids = new ConcurrentHashMap<>();

  void record(String event) {
    synchronized (this) {
      journal.add(event);
    }
    Runnable hook = onRecord.get(event);
    if (hook != null) {
      hook.run();
    }
  }

  synchronized List<String> journal() {
    return new ArrayList<>(journal);
  }

  synchronized List<String> journal(String prefix) {
    List<String> out = new ArrayList<>();
    for (String e : journal) {
      if (e.startsWith(prefix)) {
        out.add(e);
      }
    }
    return out;
  }

  void failNext(String step, int times) {
    failures.put(step, new AtomicInteger(times));
  }

  boolean shouldFail(String step) {
    AtomicInteger n = failures.get(step);
    return n != null && n.getAndDecrement() > 0;
  }

  /** Makes {@code step} block until the returned latch is counted down. */
  CountDownLatch gate(String step) {
    CountDownLatch latch = new CountDownLatch(1);
    gates.put(step, latch);
    return latch;
  }

  /** Blocks while {@code step} has a closed gate. */
  void passGate(String step) throws InterruptedException {
    CountDownLatch latch = gates.get(step);
    if (latch != null) {
      latch.await();
    }
  }
}
