package dev.baton.procedure.flow;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** The environment of flow tests: which tasks ran, failure budgets and gates that hold a task. */
final class FlowWorld {
  private final List<String> runs = new ArrayList<>();

  /** Task name → attempts left to fail. */
  final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();

  /** Task name → latch the task waits on (released by the test). */
  final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

  /** Task name → counted down when the task starts running. */
  final Map<String, CountDownLatch> started = new ConcurrentHashMap<>();

  final AtomicInteger running = new AtomicInteger();
  final AtomicInteger maxRunning = new AtomicInteger();

  void fail(String task, int times) {
    failures.put(task, new AtomicInteger(times));
  }

  CountDownLatch gate(String task) {
    return gates.computeIfAbsent(task, t -> new CountDownLatch(1));
  }

  CountDownLatch started(String task) {
    return started.computeIfAbsent(task, t -> new CountDownLatch(1));
  }

  synchronized void record(String task) {
    runs.add(task);
  }

  synchronized List<String> runs() {
    return new ArrayList<>(runs);
  }

  synchronized long runsOf(String task) {
    return runs.stream().filter(task::equals).count();
  }
}
