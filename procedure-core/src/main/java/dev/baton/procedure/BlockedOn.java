package dev.baton.procedure;

import dev.baton.procedure.scheduler.LockWait;
import dev.baton.procedure.scheduler.SlotWait;
import java.time.Instant;
import java.util.List;

/**
 * Why a live procedure does not go on now, as data: one of a few kinds, each with what an operator
 * needs to follow the wait to its cause. {@link ProcedureExecutor#blockedOn} answers it; {@link
 * ProcedureInfo#waitReason()} is its {@link #describe} text. A procedure that runs a step and
 * reported no call, or is finished, is blocked on nothing (null).
 *
 * <p>Times are epoch milliseconds of the executor's clock.
 */
public sealed interface BlockedOn {
  /** Most procedure ids a kind lists; its count says how many there are. */
  int MAX_LISTED = 16;

  /** The kind's name as clients see it: {@code lock}, {@code children}, {@code timer}, ... */
  String kind();

  /** The wait as one line of text for people, at {@code now}. */
  String describe(long now);

  /**
   * The procedures whose progress ends this wait, the one to look at first first: the lock's
   * blocking holders (or the waiters ahead of it), the unfinished children; empty for a wait on
   * something else (time, a call, a slot, a worker, a leader).
   */
  default List<Long> waitsFor() {
    return List.of();
  }

  /** Parked on a lock: who holds it, who is ahead. */
  record Lock(LockWait lock) implements BlockedOn {
    @Override
    public String kind() {
      return "lock";
    }

    @Override
    public String describe(long now) {
      return lock.describe(now);
    }

    @Override
    public List<Long> waitsFor() {
      return lock.blockers();
    }
  }

  /**
   * Waiting for its children to finish.
   *
   * @param unfinished ids of the unfinished children, oldest first (at most {@link #MAX_LISTED})
   * @param count how many children it waits for
   */
  record Children(List<Long> unfinished, int count) implements BlockedOn {
    public Children {
      unfinished = List.copyOf(unfinished);
    }

    @Override
    public String kind() {
      return "children";
    }

    @Override
    public String describe(long now) {
      return "waiting for " + count + (count == 1 ? " child" : " children");
    }

    @Override
    public List<Long> waitsFor() {
      return unfinished;
    }
  }

  /** Why a {@link Timer} runs. */
  enum TimerPurpose {
    /** The procedure asked to wait ({@code waitTimeout}), e.g. a sleep or a poll interval. */
    WAIT,
    /** A failed step is retried when the timer ends. */
    RETRY_STEP,
    /** A failed rollback step is retried when the timer ends. */
    RETRY_ROLLBACK
  }

  /**
   * Waiting for a time.
   *
   * @param step the step retried, for the retry purposes; else null
   */
  record Timer(TimerPurpose purpose, long until, String step) implements BlockedOn {
    @Override
    public String kind() {
      return "timer";
    }

    @Override
    public String describe(long now) {
      Instant at = Instant.ofEpochMilli(until);
      return switch (purpose) {
        case WAIT -> "waiting until " + at;
        case RETRY_STEP -> "retrying failed step " + step + "; backoff until " + at;
        case RETRY_ROLLBACK -> "retrying rollback of step " + step + "; backoff until " + at;
      };
    }
  }

  /**
   * A call to another system that the running step reported ({@link Procedure#externalCalls()}): in
   * flight, or failed and retried with the step.
   *
   * @param target what is called, e.g. {@code "DataNode 2 at 127.0.0.1:7001"}
   * @param command what is asked, e.g. {@code "sync_region CATCH_UP"}
   * @param attempt 1 for the first call, counting up while the same call is tried again
   * @param since when the current (or last) attempt started
   * @param lastError why the previous attempt failed, or null
   * @param nextRetry when the step that makes the call runs again; 0 while the call is in flight
   */
  record ExternalCall(
      String target, String command, int attempt, long since, String lastError, long nextRetry)
      implements BlockedOn {
    @Override
    public String kind() {
      return "externalCall";
    }

    @Override
    public String describe(long now) {
      StringBuilder sb = new StringBuilder();
      if (nextRetry == 0) {
        sb.append("in call ")
            .append(command)
            .append(" to ")
            .append(target)
            .append(" for ")
            .append(Math.max(0, now - since))
            .append(" ms (attempt ")
            .append(attempt)
            .append(')');
        if (lastError != null) {
          sb.append("; last error: ").append(lastError);
        }
      } else {
        sb.append("retrying call ")
            .append(command)
            .append(" to ")
            .append(target)
            .append(": attempt ")
            .append(attempt)
            .append(" failed (")
            .append(lastError)
            .append("); next retry at ")
            .append(Instant.ofEpochMilli(nextRetry));
      }
      return sb.toString();
    }
  }

  /** Waiting for a slot of its type's concurrency limit. */
  record ConcurrencyLimit(SlotWait slots) implements BlockedOn {
    @Override
    public String kind() {
      return "concurrencyLimit";
    }

    @Override
    public String describe(long now) {
      return slots.describe();
    }
  }

  /**
   * Ready to run, waiting for a worker to take it.
   *
   * @param workers the executor's workers now
   * @param busy workers running a step now
   * @param queued procedures ready to run and waiting for a worker
   */
  record NoFreeWorker(int workers, int busy, int queued) implements BlockedOn {
    @Override
    public String kind() {
      return "noFreeWorker";
    }

    @Override
    public String describe(long now) {
      return "queued to run: "
          + busy
          + " of "
          + workers
          + " workers busy, "
          + queued
          + " procedures queued";
    }
  }

  /** Suspended (WAITING without children) until something wakes it. */
  record Suspended() implements BlockedOn {
    @Override
    public String kind() {
      return "suspended";
    }

    @Override
    public String describe(long now) {
      return "suspended until woken";
    }
  }

  /**
   * No executor runs procedures where it was asked: the node is not the leader, or is the leader
   * but still recovering. Made by the embedding that knows leadership (a replicated node).
   *
   * @param node the node asked
   * @param leader the leader's id, or null when there is none
   * @param detail what the node knows, e.g. "no leader now"
   */
  record NotLeader(String node, String leader, String detail) implements BlockedOn {
    @Override
    public String kind() {
      return "notLeader";
    }

    @Override
    public String describe(long now) {
      return "no executor runs procedures on node " + node + ": " + detail;
    }
  }
}
