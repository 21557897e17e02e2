package dev.baton.procedure.scheduler;

import dev.baton.procedure.Procedure;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;

/** The seed's plain queue: first in, first out, with continuations at the front. */
public final class FifoScheduler implements ProcedureScheduler {
  private final LinkedBlockingDeque<Procedure<?>> queue = new LinkedBlockingDeque<>();
  private volatile boolean running;

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
  }

  @Override
  public void addFront(Procedure<?> proc) {
    queue.addFirst(proc);
  }

  @Override
  public void addBack(Procedure<?> proc) {
    queue.addLast(proc);
  }

  @Override
  public Procedure<?> poll(long timeout, TimeUnit unit) throws InterruptedException {
    if (!running) {
      return null;
    }
    return queue.pollFirst(timeout, unit);
  }

  @Override
  public int size() {
    return queue.size();
  }

  @Override
  public void clear() {
    queue.clear();
  }
}
