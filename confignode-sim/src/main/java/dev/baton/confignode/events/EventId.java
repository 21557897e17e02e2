package dev.baton.confignode.events;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/**
 * Where an event stands in the replicated log, the same on every node: the index of the log entry
 * that made the change and the change's place among that entry's changes. Written {@code
 * INDEX.SEQ}; a bare {@code INDEX} stands after every change of entry {@code INDEX} (a snapshot's
 * position, or a stream's start).
 *
 * @param index the log index
 * @param seq the change's place in its entry, from 0; {@link #WHOLE_ENTRY} for after all of them
 */
public record EventId(long index, int seq) implements Comparable<EventId> {
  /** The {@code seq} of a position after every change of its entry. */
  public static final int WHOLE_ENTRY = Integer.MAX_VALUE;

  /** Before any event. */
  public static final EventId START = new EventId(0, WHOLE_ENTRY);

  /** The position after all of entry {@code index}. */
  public static EventId afterEntry(long index) {
    return new EventId(index, WHOLE_ENTRY);
  }

  /** Parses {@code INDEX.SEQ} or {@code INDEX}; empty for anything else. */
  public static Optional<EventId> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String s = text.strip();
    int dot = s.indexOf('.');
    try {
      long index = Long.parseLong(dot < 0 ? s : s.substring(0, dot));
      int seq = dot < 0 ? WHOLE_ENTRY : Integer.parseInt(s.substring(dot + 1));
      if (index < 0 || seq < 0) {
        return Optional.empty();
      }
      return Optional.of(new EventId(index, seq));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  @Override
  public int compareTo(EventId o) {
    int c = Long.compare(index, o.index);
    return c != 0 ? c : Integer.compare(seq, o.seq);
  }

  @JsonValue
  @Override
  public String toString() {
    return seq == WHOLE_ENTRY ? Long.toString(index) : index + "." + seq;
  }
}
