package dev.baton.procedure;

import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Waits for deadlines in a {@link TimeoutQueue} and hands expired entries to the executor. */
final class TimeoutExecutorThread extends Thread {
  private static final Logger LOG = LoggerFactory.getLogger(TimeoutExecutorThread.class);

  private final TimeoutQueue queue;
  private final Consumer<TimeoutQueue.Entry> handler;
  private volatile boolean running = true;

  TimeoutExecutorThread(String name, TimeoutQueue queue, Consumer<TimeoutQueue.Entry> handler) {
    super(name);
    setDaemon(true);
    this.queue = queue;
    this.handler = handler;
  }

  void shutdown() {
    running = false;
    interrupt();
  }

  @Override
  public void run() {
    while (running) {
      TimeoutQueue.Entry entry;
      try {
        entry = queue.takeExpired(ExecutorConfig.TIMEOUT_THREAD_IDLE_WAIT.toMillis());
      } catch (InterruptedException e) {
        break;
      }
      if (entry == null) {
        continue;
      }
      try {
        handler.accept(entry);
      } catch (RuntimeException e) {
        LOG.error("timeout handling of {} failed; the entry is dropped", entry, e);
      }
    }
  }
}
