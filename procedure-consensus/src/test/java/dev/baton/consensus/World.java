package dev.baton.consensus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What test procedures act on, shared by every node of an in-process cluster: a journal of each
 * executed and rolled-back step with the term of the executor that ran it, gates that hold a step
 * until the test opens them, and a gate that holds a new leader in {@link
 * NodeRole#LEADER_RECOVERING}.
 */
final class World {
  /** One executed (or rolled-back) step. */
  record Step(long procId, String name, String state, long term, String node) {}

  /** Longest a recovering leader waits on {@link #holdRecovery}; a forgotten gate cannot hang. */
  static final long RECOVERY_GATE_SECONDS = 60;

  private final List<Step> steps = new ArrayList<>();
  private final List<Step> rollbacks = new ArrayList<>();

  /** Step key ("name:STATE") → gate that step waits on when it runs. */
  final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

  /** Step key → latch counted down when that step starts. */
  final Map<String, CountDownLatch> reached = new ConcurrentHashMap<>();

  private volatile CountDownLatch recoveryGate;
  private volatile CountDownLatch recoveryReached;

  synchronized void record(Step s) {
    steps.add(s);
  }

  synchronized void recordRollback(Step s) {
    rollbacks.add(s);
  }

  synchronized List<Step> steps() {
    return new ArrayList<>(steps);
  }

  synchronized List<Step> steps(String name) {
    List<Step> out = new ArrayList<>();
    for (Step s : steps) {
      if (s.name().equals(name)) {
        out.add(s);
      }
    }
    return out;
  }

  synchronized List<Step> rollbacks(String name) {
    List<Step> out = new ArrayList<>();
    for (Step s : rollbacks) {
      if (s.name().equals(name)) {
        out.add(s);
      }
    }
    return out;
  }

  CountDownLatch hold(String key) {
    reached.put(key, new CountDownLatch(1));
    return gates.computeIfAbsent(key, k -> new CountDownLatch(1));
  }

  /**
   * Makes every new leader executor wait, while being built, until the returned gate opens: the
   * leader stays {@link NodeRole#LEADER_RECOVERING}. {@link #recoveryReached()} counts down when a
   * leader reached the gate.
   */
  CountDownLatch holdRecovery() {
    recoveryReached = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    recoveryGate = gate;
    return gate;
  }

  CountDownLatch recoveryReached() {
    return recoveryReached;
  }

  /** Called while a leader builds its executor's environment (on its lifecycle thread). */
  void enterRecovery(LeaderContext leader) {
    CountDownLatch gate = recoveryGate;
    if (gate == null) {
      return;
    }
    recoveryReached.countDown();
    try {
      if (!gate.await(RECOVERY_GATE_SECONDS, TimeUnit.SECONDS)) {
        throw new IllegalStateException("recovery gate of " + leader + " never opened");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
