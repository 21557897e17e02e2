package dev.baton.consensus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * What test procedures act on, shared by every node of an in-process cluster: a journal of each
 * executed step with the term of the executor that ran it, and gates that hold a step until the
 * test opens them.
 */
final class World {
  /** One executed step. */
  record Step(long procId, String name, String state, long term, String node) {}

  private final List<Step> steps = new ArrayList<>();

  /** Step key ("name:STATE") → gate that step waits on when it runs. */
  final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

  /** Step key → latch counted down when that step starts. */
  final Map<String, CountDownLatch> reached = new ConcurrentHashMap<>();

  synchronized void record(Step s) {
    steps.add(s);
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

  CountDownLatch hold(String key) {
    reached.put(key, new CountDownLatch(1));
    return gates.computeIfAbsent(key, k -> new CountDownLatch(1));
  }
}
