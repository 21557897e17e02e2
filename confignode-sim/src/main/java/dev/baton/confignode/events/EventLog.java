package dev.baton.confignode.events;

import dev.baton.consensus.AppliedChanges;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureInfo;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The procedure changes this node applied, for watchers: each change of the replicated table
 * becomes a {@link ProcedureEvent} named by its log position, the latest {@code capacity} are kept
 * so a watcher that reconnects (here or, since positions are the same everywhere, on another node)
 * gets exactly the events after the last one it saw, and each new event goes to every watcher whose
 * filter accepts it. When the events after a watcher's last one are no longer all kept (evicted, or
 * the table was replaced by a snapshot since), the watcher is told to reload instead ({@link
 * Sink#reset}).
 *
 * <p>The apply thread only hands changes over; decoding and delivery run on this log's own thread,
 * which also sends each watcher a heartbeat every {@code heartbeat}. Sinks must not block: a
 * watcher is a queue in front of a connection, not a thread.
 */
public final class EventLog implements AppliedChanges, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventLog.class);

  /** Events kept for watchers that resume. */
  public static final int DEFAULT_CAPACITY = 10_000;

  /** Watchers one node serves at once. */
  public static final int DEFAULT_MAX_WATCHERS = 256;

  /** How often a watcher hears something while nothing changes. */
  public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(15);

  /** Where events go for one watcher; each call returns false once the watcher is gone. */
  public interface Sink {
    /**
     * The watch begins: {@code resuming} says whether kept events follow, else {@code position} is
     * where it starts.
     */
    boolean start(EventId position, boolean resuming);

    boolean event(ProcedureEvent event);

    /**
     * The events after the watcher's last one are not all kept: it reloads what it shows and goes
     * on from {@code now}.
     */
    boolean reset(EventId now, String why);

    boolean heartbeat();
  }

  /** A watcher is refused: this node already serves {@link #maxWatchers} of them. */
  public static final class TooManyWatchers extends Exception {
    TooManyWatchers(int max) {
      super(
          "this node already serves " + max + " event watchers; try again later",
          null,
          false,
          false);
    }
  }

  /** One watcher's registration; closing it stops its events. */
  public final class Watch implements AutoCloseable {
    private final EventFilter filter;
    private final Sink sink;

    private Watch(EventFilter filter, Sink sink) {
      this.filter = filter;
      this.sink = sink;
    }

    @Override
    public void close() {
      synchronized (EventLog.this) {
        watchers.remove(this);
      }
    }
  }

  private final String nodeId;
  private final ProcedureCodec codec;
  private final int capacity;
  private final int maxWatchers;
  private final ScheduledThreadPoolExecutor thread;
  private final ArrayDeque<ProcedureEvent> kept = new ArrayDeque<>();
  private final List<Watch> watchers = new ArrayList<>();

  /** Events after this position are all kept (or still to come). */
  private EventId floor = EventId.START;

  /** The latest position heard of. */
  private EventId position = EventId.START;

  public EventLog(
      String nodeId, ProcedureCodec codec, int capacity, int maxWatchers, Duration heartbeat) {
    if (capacity < 1 || maxWatchers < 1 || heartbeat.isNegative() || heartbeat.isZero()) {
      throw new IllegalArgumentException(
          "capacity, maxWatchers and heartbeat must be positive, got "
              + capacity
              + ", "
              + maxWatchers
              + ", "
              + heartbeat);
    }
    this.nodeId = nodeId;
    this.codec = codec;
    this.capacity = capacity;
    this.maxWatchers = maxWatchers;
    this.thread =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "baton-" + nodeId + "-events");
              t.setDaemon(true);
              return t;
            });
    thread.setRemoveOnCancelPolicy(true);
    long every = heartbeat.toMillis();
    thread.scheduleWithFixedDelay(this::heartbeat, every, every, TimeUnit.MILLISECONDS);
  }

  /** A log with the default capacity, watcher limit and heartbeat. */
  public static EventLog withDefaults(String nodeId, ProcedureCodec codec) {
    return new EventLog(nodeId, codec, DEFAULT_CAPACITY, DEFAULT_MAX_WATCHERS, DEFAULT_HEARTBEAT);
  }

  public int maxWatchers() {
    return maxWatchers;
  }

  @Override
  public void applied(long index, List<Change> changes) {
    thread.execute(() -> append(index, changes));
  }

  @Override
  public void replaced(long index) {
    thread.execute(() -> replace(index));
  }

  /**
   * Registers a watcher: with {@code lastSeen}, it first gets every kept event after it that the
   * filter accepts (or a reset when they are not all kept); without, only events from now on. The
   * sink is made ({@code open}) only once the watcher is admitted.
   */
  public synchronized Watch watch(
      EventFilter filter, Optional<EventId> lastSeen, Supplier<Sink> open) throws TooManyWatchers {
    if (watchers.size() >= maxWatchers) {
      throw new TooManyWatchers(maxWatchers);
    }
    Sink sink = open.get();
    Watch w = new Watch(filter, sink);
    if (!sink.start(position, lastSeen.isPresent())) {
      return w;
    }
    if (lastSeen.isPresent()) {
      EventId from = lastSeen.get();
      if (from.compareTo(floor) < 0) {
        if (!sink.reset(
            position,
            "node "
                + nodeId
                + " no longer keeps the events after "
                + from
                + " (it keeps those after "
                + floor
                + ")")) {
          return w;
        }
      } else {
        for (ProcedureEvent e : kept) {
          if (e.id().compareTo(from) > 0 && filter.accepts(e) && !sink.event(e)) {
            return w;
          }
        }
      }
    }
    watchers.add(w);
    return w;
  }

  /** The latest position this node heard of: where a watcher that starts now stands. */
  public synchronized EventId position() {
    return position;
  }

  public synchronized int watcherCount() {
    return watchers.size();
  }

  private void append(long index, List<Change> changes) {
    List<ProcedureEvent> events = new ArrayList<>(changes.size());
    for (int i = 0; i < changes.size(); i++) {
      Change c = changes.get(i);
      try {
        ProcedureInfo info = codec.summarize(c.procId(), c.data(), c.parts());
        events.add(ProcedureEvent.of(new EventId(index, i), info, c.deleted()));
      } catch (RuntimeException e) {
        LOG.warn(
            "Entry {}: record of procedure {} has no event: {}", index, c.procId(), e.toString());
      }
    }
    synchronized (this) {
      for (ProcedureEvent e : events) {
        kept.addLast(e);
        if (kept.size() > capacity) {
          floor = kept.removeFirst().id();
        }
        watchers.removeIf(w -> w.filter.accepts(e) && !w.sink.event(e));
      }
      position = max(position, EventId.afterEntry(index));
    }
  }

  private synchronized void replace(long index) {
    kept.clear();
    floor = max(position, EventId.afterEntry(index));
    position = floor;
    EventId now = position;
    watchers.removeIf(
        w -> !w.sink.reset(now, "node " + nodeId + " loaded a snapshot of entry " + index));
  }

  private synchronized void heartbeat() {
    watchers.removeIf(w -> !w.sink.heartbeat());
  }

  private static EventId max(EventId a, EventId b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  @Override
  public void close() {
    thread.shutdownNow();
    synchronized (this) {
      watchers.clear();
    }
  }
}
