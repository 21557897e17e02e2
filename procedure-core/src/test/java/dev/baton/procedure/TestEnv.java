package dev.baton.procedure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The world test procedures act on: an ordered journal of what ran, and failure switches. */
final class TestEnv {
  private final List<String> journal = new ArrayList<>();

  /** Step names ("procName:STATE") that fail while their counter is positive. */
  final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();

  synchronized void record(String event) {
    journal.add(event);
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
}
