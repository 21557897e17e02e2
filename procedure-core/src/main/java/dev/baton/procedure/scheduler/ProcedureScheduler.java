package dev.baton.procedure.scheduler;

import java.util.concurrent.TimeUnit;

/**
 * The run queue of an executor: procedures ready for a step. Workers block in {@link #poll}.
 *
 * <p>A procedure may be offered more than once (for example woken while already queued); the
 * executor tolerates such duplicates, so implementations need not deduplicate.
 */
public interface ProcedureScheduler {

  /** Opens the queue for polling. */
  void start();

  /** Wakes every blocked poller and makes {@link #poll} return null from now on. */
  void stop();

  /** Queues a procedure to run before the others (a continuation or a child). */
  void addFront(Schedulable proc);

  /** Queues a procedure after the others (new submissions, yields). */
  void addBack(Schedulable proc);

  /** Takes the next procedure, waiting up to the timeout; null if none came or stopped. */
  Schedulable poll(long timeout, TimeUnit unit) throws InterruptedException;

  /** Number of queued entries. */
  int size();

  /** Drops every queued entry. */
  void clear();
}
