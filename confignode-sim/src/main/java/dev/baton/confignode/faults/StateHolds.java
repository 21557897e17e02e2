package dev.baton.confignode.faults;

import dev.baton.procedure.Procedure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ConfigNode-side fault hook for drills: holds every procedure of a named type at the start of a
 * named state, before that state's step runs, until the hold is released. It gives a kill point to
 * states that send no DataNode command (a DataNode stall cannot hold those), e.g. RemoveDataNode in
 * MARK_REMOVING: a node killed while a procedure is held has recorded the state as due but not run
 * it.
 *
 * <p>Holds live in one node's memory only: a new leader (or this node after a restart) runs
 * normally. The wait is interruptible, so a stopping executor (a lost leadership) ends it like any
 * step. A node started without {@code --faults} has a {@link #disabled()} instance, which refuses
 * to hold and costs a procedure one volatile read per step.
 */
public final class StateHolds {
  private static final Logger LOG = LoggerFactory.getLogger(StateHolds.class);

  /** A hold: procedures of {@code type} stop before running {@code state}. */
  public record Hold(String type, String state) {
    /** The separator of {@link #parse}'s form. */
    public static final char SEPARATOR = ':';

    /**
     * A hold written {@code TYPE:STATE} (as on a node's command line).
     *
     * @throws IllegalArgumentException if the text is not of that form
     */
    public static Hold parse(String text) {
      int at = text.indexOf(SEPARATOR);
      if (at <= 0 || at == text.length() - 1) {
        throw new IllegalArgumentException(
            "a hold is TYPE"
                + SEPARATOR
                + "STATE (e.g. RemoveDataNode:MIGRATE), got '"
                + text
                + "'");
      }
      return new Hold(text.substring(0, at), text.substring(at + 1));
    }

    @Override
    public String toString() {
      return type + SEPARATOR + state;
    }
  }

  /** A procedure waiting at a hold now. */
  public record Held(long procId, String type, String state) {}

  private final Map<String, List<String>> knownStates;
  private final Set<Hold> holds = new LinkedHashSet<>(); // guarded by this
  private final Map<Long, Held> held = new LinkedHashMap<>(); // guarded by this
  private volatile boolean anyHold;

  private StateHolds(Map<String, List<String>> knownStates) {
    this.knownStates = knownStates;
  }

  /** Holds switched off: {@link #hold} refuses, {@link #awaitRelease} returns at once. */
  public static StateHolds disabled() {
    return new StateHolds(null);
  }

  /**
   * Holds switched on, for the procedure types and their state names in {@code knownStates} (a hold
   * naming anything else is refused).
   */
  public static StateHolds enabled(Map<String, List<String>> knownStates) {
    return new StateHolds(Map.copyOf(knownStates));
  }

  public boolean isEnabled() {
    return knownStates != null;
  }

  /**
   * Adds a hold (adding one twice is harmless).
   *
   * @throws IllegalStateException if holds are disabled on this node
   * @throws IllegalArgumentException naming what is wrong: an unknown type, or a state the type
   *     does not have
   */
  public synchronized void hold(String type, String state) {
    if (!isEnabled()) {
      throw new IllegalStateException("fault holds are off on this node; start it with --faults");
    }
    List<String> states = knownStates.get(type);
    if (states == null) {
      throw new IllegalArgumentException(
          "unknown procedure type '" + type + "'; known: " + knownStates.keySet());
    }
    if (!states.contains(state)) {
      throw new IllegalArgumentException(
          "procedure type " + type + " has no state '" + state + "'; its states: " + states);
    }
    holds.add(new Hold(type, state));
    anyHold = true;
    LOG.warn("fault hold set: {} procedures stop before state {}", type, state);
  }

  /** Removes every hold and lets the procedures waiting at them go on; returns how many waited. */
  public synchronized int releaseAll() {
    int waiting = held.size();
    if (!holds.isEmpty()) {
      LOG.warn("fault holds {} released; {} procedures go on", holds, waiting);
    }
    holds.clear();
    anyHold = false;
    notifyAll();
    return waiting;
  }

  /**
   * Blocks while a hold names {@code proc}'s type and {@code state}; returns at once otherwise.
   *
   * @throws InterruptedException if the waiting thread is interrupted (the executor stops)
   */
  public void awaitRelease(Procedure<?> proc, String state) throws InterruptedException {
    if (!anyHold) {
      return;
    }
    Hold hold = new Hold(proc.getType(), state);
    synchronized (this) {
      if (!holds.contains(hold)) {
        return;
      }
      held.put(proc.getProcId(), new Held(proc.getProcId(), hold.type(), state));
      LOG.warn(
          "procedure {} ({}) held by a fault hold before state {}",
          proc.getProcId(),
          hold.type(),
          state);
      try {
        while (holds.contains(hold)) {
          wait();
        }
      } finally {
        held.remove(proc.getProcId());
      }
    }
  }

  /** The holds set now. */
  public synchronized List<Hold> holds() {
    return new ArrayList<>(holds);
  }

  /** The procedures waiting at a hold now, in the order they arrived. */
  public synchronized List<Held> held() {
    return new ArrayList<>(held.values());
  }

  /** Whether {@code procId} waits at a hold now, and where. */
  public synchronized Optional<Held> heldAt(long procId) {
    return Optional.ofNullable(held.get(procId));
  }
}
