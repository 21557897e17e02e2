package dev.baton.confignode.history;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A recorded history: the client operations, in any order, and the state at the end.
 *
 * @param operations every operation, with distinct ids
 * @param end what the cluster held once it was quiet
 */
public record History(List<Operation> operations, FinalState end) {
  public History {
    operations = List.copyOf(operations);
    Set<Integer> ids = new HashSet<>();
    for (Operation o : operations) {
      if (o.id() == Operation.END_ID || !ids.add(o.id())) {
        throw new IllegalArgumentException("operation id " + o.id() + " is reserved or used twice");
      }
    }
  }
}
