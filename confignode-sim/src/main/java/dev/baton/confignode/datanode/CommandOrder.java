package dev.baton.confignode.datanode;

import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/**
 * Per procedure, the newest command applied here ({@link OrderMark}), so that a command overtaken
 * by a later one of its procedure is refused when it finally arrives: e.g. an {@code ADD_PEER} the
 * ConfigNode gave up on (its call timed out while the DataNode stalled it), which would otherwise
 * land after the rollback's {@code UNDO_ADD_PEER} of the same term. Term fencing does not cover
 * that, the two commands having the same term. The marks are part of the durable state, kept for
 * the {@code capacity} procedures that sent a command most recently. Not thread-safe.
 */
final class CommandOrder {
  private final int capacity;
  private final LinkedHashMap<Long, OrderMark> marks = new LinkedHashMap<>();

  CommandOrder(int capacity) {
    this.capacity = capacity;
  }

  /** The newer command of {@code procId} applied here, if a command at (term, seq) is older. */
  Optional<OrderMark> overtaking(long procId, long term, long seq) {
    OrderMark mark = marks.get(procId);
    return mark != null && mark.isAfter(term, seq) ? Optional.of(mark) : Optional.empty();
  }

  /** Notes an applied command; the mark of its procedure only moves forward. */
  void applied(OrderMark mark) {
    OrderMark old = marks.remove(mark.procId());
    marks.put(mark.procId(), old != null && old.isAfter(mark.term(), mark.seq()) ? old : mark);
    Iterator<Long> oldest = marks.keySet().iterator();
    while (marks.size() > capacity) {
      oldest.next();
      oldest.remove();
    }
  }

  void restore(Collection<OrderMark> saved) {
    saved.forEach(this::applied);
  }

  /** The marks, least recently moved first. */
  List<OrderMark> marks() {
    return List.copyOf(marks.values());
  }
}
