package dev.baton.confignode.http;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts off a connection whose request line and headers take longer than a deadline to arrive. The
 * idle timeout alone does not: a client that drips one byte a second is never idle. Every {@link
 * #sweepEvery} it looks at each open HTTP/1.1 connection; one whose parser has begun a request
 * (past the first byte, not yet past the headers) longer ago than the deadline is closed. Waiting
 * for the first byte of a request is the idle timeout's business.
 */
final class HeaderDeadline extends AbstractLifeCycle implements Connection.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(HeaderDeadline.class);

  /** Sweeps per deadline: a dripping connection is cut off within 1.25 deadlines. */
  static final int SWEEPS_PER_DEADLINE = 4;

  private final Duration deadline;
  private final Duration sweepEvery;
  private final Scheduler scheduler;
  private final Set<HttpConnection> open = ConcurrentHashMap.newKeySet();
  private volatile Scheduler.Task next;

  HeaderDeadline(Duration deadline, Scheduler scheduler) {
    this.deadline = deadline;
    this.sweepEvery = deadline.dividedBy(SWEEPS_PER_DEADLINE);
    this.scheduler = scheduler;
  }

  @Override
  public void onOpened(Connection connection) {
    if (connection instanceof HttpConnection http) {
      open.add(http);
    }
  }

  @Override
  public void onClosed(Connection connection) {
    if (connection instanceof HttpConnection http) {
      open.remove(http);
    }
  }

  @Override
  protected void doStart() {
    schedule();
  }

  @Override
  protected void doStop() {
    Scheduler.Task task = next;
    if (task != null) {
      task.cancel();
    }
    open.clear();
  }

  private void schedule() {
    if (isRunning() || isStarting()) {
      next = scheduler.schedule(this::sweep, sweepEvery.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  private void sweep() {
    try {
      long limit = deadline.toNanos();
      for (HttpConnection c : open) {
        HttpParser parser = c.getParser();
        if (parser.isStart() || !parser.inHeaderState()) {
          continue;
        }
        long began = parser.getBeginNanoTime();
        if (NanoTime.since(began) > limit) {
          LOG.info(
              "closing connection from {}: its request headers took longer than {}",
              c.getEndPoint().getRemoteSocketAddress(),
              deadline);
          c.close();
        }
      }
    } finally {
      schedule();
    }
  }
}
