package dev.baton.procedure;

import dev.baton.procedure.scheduler.ProcedureScheduler;
import dev.baton.procedure.scheduler.Schedulable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor's workers: {@code core} workers always run; a monitor checks for workers stuck in
 * one step longer than the threshold and, while work is queued, adds temporary keep-alive workers
 * up to {@code max}, which retire after being idle for the keep-alive time.
 */
final class WorkerPool {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);

  private final String name;
  private final ProcedureScheduler scheduler;
  private final Consumer<Schedulable> runner;
  private final ExecutorConfig config;
  private final List<Worker> workers = new CopyOnWriteArrayList<>();
  private final AtomicInteger workerSeq = new AtomicInteger();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final ExecutorService completions;
  private volatile boolean running;
  private Thread monitor;

  WorkerPool(
      String name,
      ProcedureScheduler scheduler,
      Consumer<Schedulable> runner,
      ExecutorConfig config) {
    this.name = name;
    this.scheduler = scheduler;
    this.runner = runner;
    this.config = config;
    this.completions =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, name + "-write-completion");
              t.setDaemon(true);
              return t;
            });
  }

  void start() {
    running = true;
    for (int i = 0; i < config.coreWorkers(); i++) {
      startWorker(false);
    }
    monitor = new Thread(this::monitorLoop, name + "-worker-monitor");
    monitor.setDaemon(true);
    monitor.start();
  }

  /**
   * Interrupts every worker and waits for them to exit, all of them together at most the stop join
   * timeout (a stop must not take longer with more workers: a new leader's executor waits for it).
   * Continuations of writes already durable still run; those of later writes run on the thread that
   * completes (fails) them.
   */
  void stop() {
    running = false;
    completions.shutdown();
    stopped.countDown();
    if (monitor != null) {
      monitor.interrupt();
    }
    for (Worker w : workers) {
      w.interrupt();
    }
    long deadline = System.nanoTime() + config.stopJoinTimeout().toNanos();
    for (Worker w : workers) {
      long left = deadline - System.nanoTime();
      if (w != Thread.currentThread() && left > 0) {
        try {
          TimeUnit.NANOSECONDS.timedJoin(w, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
    for (Worker w : workers) {
      if (w != Thread.currentThread() && w.isAlive()) {
        LOG.warn(
            "{} did not stop within {}; it keeps running its step",
            w.getName(),
            config.stopJoinTimeout());
      }
    }
  }

  boolean isRunning() {
    return running;
  }

  int workerCount() {
    return workers.size();
  }

  /** Workers currently running a step. */
  int activeCount() {
    int n = 0;
    for (Worker w : workers) {
      if (w.stepStartNanos != 0) {
        n++;
      }
    }
    return n;
  }

  /** Workers running one step longer than the stuck threshold. */
  int stuckCount() {
    long now = System.nanoTime();
    long threshold = config.stuckThreshold().toNanos();
    int n = 0;
    for (Worker w : workers) {
      long started = w.stepStartNanos;
      if (started != 0 && now - started > threshold) {
        n++;
      }
    }
    return n;
  }

  private void startWorker(boolean temporary) {
    Worker w = new Worker(name + "-worker-" + workerSeq.incrementAndGet(), temporary);
    workers.add(w);
    w.start();
  }

  private void monitorLoop() {
    try {
      while (!stopped.await(config.stuckCheckInterval().toMillis(), TimeUnit.MILLISECONDS)) {
        checkStuck();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One monitor round: add keep-alive workers for stuck ones while work waits. */
  void checkStuck() {
    int stuck = stuckCount();
    if (stuck == 0 || scheduler.size() == 0) {
      return;
    }
    int room = config.maxWorkers() - workers.size();
    int add = Math.min(stuck, room);
    if (add <= 0) {
      LOG.warn(
          "{} of {} workers are stuck longer than {} and no more may be added (max {}); "
              + "{} procedures wait. Check the stuck procedures' steps.",
          stuck,
          workers.size(),
          config.stuckThreshold(),
          config.maxWorkers(),
          scheduler.size());
      return;
    }
    LOG.warn(
        "{} workers stuck longer than {}; adding {} keep-alive workers",
        stuck,
        config.stuckThreshold(),
        add);
    for (int i = 0; i < add; i++) {
      startWorker(true);
    }
  }

  private final class Worker extends Thread {
    private final boolean temporary;
    private volatile long stepStartNanos;

    Worker(String name, boolean temporary) {
      super(name);
      setDaemon(true);
      this.temporary = temporary;
    }

    /**
     * Polls and runs procedures. The store writes of its steps are handed over to its {@link
     * WritePipeline}; their continuations run on the pool's completion thread, so this worker never
     * waits for them unless it has {@link WritePipeline#MAX_IN_FLIGHT} in flight.
     */
    @Override
    public void run() {
      long idleSince = System.nanoTime();
      long keepAlive = config.keepAlive().toNanos();
      long pollMillis = config.pollInterval().toMillis();
      WritePipeline pipeline = new WritePipeline(completions);
      pipeline.bindToCurrentThread();
      try {
        while (running && !isInterrupted()) {
          if (pipeline.isFull()) {
            pipeline.awaitSlot(pollMillis);
            continue;
          }
          Schedulable proc = scheduler.poll(pollMillis, TimeUnit.MILLISECONDS);
          if (proc == null) {
            if (temporary && pipeline.isEmpty() && System.nanoTime() - idleSince > keepAlive) {
              break;
            }
            continue;
          }
          stepStartNanos = System.nanoTime();
          try {
            runner.accept(proc);
          } finally {
            stepStartNanos = 0;
            idleSince = System.nanoTime();
          }
        }
      } catch (InterruptedException e) {
        // stopping
      } catch (Throwable t) {
        LOG.error("{} terminated by an unexpected error", getName(), t);
      } finally {
        pipeline.unbind();
        workers.remove(this);
      }
    }
  }
}
