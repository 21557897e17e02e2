package dev.baton.confignode.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The submissions of a history by nonce, and which acknowledged submission gave each procedure id:
 * what the rules look up.
 */
final class SubmissionIndex {
  private final Map<Long, List<Operation>> byNonce = new LinkedHashMap<>();
  private final Map<Long, Operation> firstAck = new HashMap<>();
  private final Map<String, List<Operation>> byDatabase = new HashMap<>();

  SubmissionIndex(List<Operation> operations) {
    List<Operation> sorted = new ArrayList<>(operations);
    sorted.sort(Comparator.comparingLong(Operation::startNanos).thenComparingInt(Operation::id));
    for (Operation o : sorted) {
      if (o.request().isSubmit()) {
        byNonce.computeIfAbsent(o.request().nonce(), n -> new ArrayList<>()).add(o);
        if (o.ok()) {
          firstAck.merge(o.reply().procId(), o, (a, b) -> a.endNanos() <= b.endNanos() ? a : b);
        }
      }
    }
    for (List<Operation> attempts : byNonce.values()) {
      Request r = attempts.get(0).request();
      if (r.database() != null) {
        byDatabase
            .computeIfAbsent(databaseKey(r.type(), r.database()), k -> new ArrayList<>())
            .add(attempts.get(0));
      }
    }
  }

  private static String databaseKey(String type, String database) {
    return type + "/" + database;
  }

  /** Every nonce with its attempts, each list ordered by start. */
  Map<Long, List<Operation>> byNonce() {
    return byNonce;
  }

  /** The acknowledged submission that returned {@code procId} first (by end), if any. */
  Optional<Operation> acknowledging(long procId) {
    return Optional.ofNullable(firstAck.get(procId));
  }

  /** Every procedure id an acknowledged submission returned, with the first such submission. */
  Map<Long, Operation> acknowledged() {
    return firstAck;
  }

  /** The first acknowledged attempt of a nonce, if any. */
  static Optional<Operation> firstOk(List<Operation> attempts) {
    return attempts.stream()
        .filter(Operation::ok)
        .min(Comparator.comparingLong(Operation::endNanos));
  }

  /** The first attempt of every nonce whose submission names {@code database} with {@code type}. */
  List<Operation> firstAttemptsOf(String type, String database) {
    return byDatabase.getOrDefault(databaseKey(type, database), List.of());
  }
}
