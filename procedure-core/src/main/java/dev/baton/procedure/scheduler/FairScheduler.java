package dev.baton.procedure.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Per-resource run queues served round-robin within a priority class, classes by priority (as
 * HBase's {@code MasterProcedureScheduler} with its {@code FairQueue}s).
 *
 * <ul>
 *   <li>A procedure that implements {@link ResourceProcedure} is queued in the queue of its {@link
 *       ResourceKey}; all others share one "other" queue.
 *   <li>Each queue belongs to the priority class of its resource type. By default NODE &gt;
 *       DATABASE &gt; REGION &gt; other ({@link Builder#priority}); types given the same priority
 *       share one class. {@link #poll} serves the highest non-empty class.
 *   <li>Within a class, the non-empty queues form a ring: each poll takes the head procedure of the
 *       queue at the front of the ring and moves that queue to the back. A flood of procedures on
 *       one resource therefore delays a procedure on another resource of the same class by at most
 *       one step per other non-empty queue of that class.
 *   <li>{@link #addBack} (new submissions, yields) appends to the procedure's queue; {@link
 *       #addFront} (continuations, children, wake-ups) puts it at the head of its queue. A queue
 *       that becomes non-empty joins the back of its ring; a queue that becomes empty is removed.
 * </ul>
 *
 * <p>Adding and polling are O(1) (a hash lookup and deque operations), independent of the number of
 * queues. One lock guards the structure. Blocked workers are woken one at a time ({@link
 * PollerWakeups}).
 */
public final class FairScheduler implements ProcedureScheduler {
  /** Default priority of the "other" class (procedures that name no resource). */
  public static final int DEFAULT_OTHER_PRIORITY = 0;

  private final ReentrantLock lock = new ReentrantLock();
  private final PollerWakeups wakeups = new PollerWakeups(lock);
  private final RunQueueTable queues = new RunQueueTable();
  private final EnumMap<ResourceType, PriorityClass> classOf = new EnumMap<>(ResourceType.class);
  private final PriorityClass[] classes; // highest priority first
  private final RunQueue other;
  private int size;
  private volatile boolean running;

  /** A scheduler with the default priorities: NODE &gt; DATABASE &gt; REGION &gt; other. */
  public FairScheduler() {
    this(builder());
  }

  private FairScheduler(Builder b) {
    Map<Integer, PriorityClass> byPriority = new HashMap<>();
    for (ResourceType t : ResourceType.values()) {
      int p = b.priorities.get(t);
      classOf.put(t, byPriority.computeIfAbsent(p, PriorityClass::new));
    }
    PriorityClass otherClass = byPriority.computeIfAbsent(b.otherPriority, PriorityClass::new);
    List<PriorityClass> sorted = new ArrayList<>(byPriority.values());
    sorted.sort((x, y) -> Integer.compare(y.priority, x.priority));
    this.classes = sorted.toArray(new PriorityClass[0]);
    this.other = new RunQueue(null, otherClass);
  }

  /** A builder starting from the default priorities. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    lock.lock();
    try {
      running = false;
      wakeups.wakeAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void addFront(Schedulable proc) {
    add(proc, true);
  }

  @Override
  public void addBack(Schedulable proc) {
    add(proc, false);
  }

  private void add(Schedulable proc, boolean front) {
    Objects.requireNonNull(proc, "proc");
    ResourceKey key = proc instanceof ResourceProcedure rp ? rp.schedulingResource() : null;
    lock.lock();
    try {
      RunQueue q;
      if (key == null) {
        q = other;
      } else {
        q = queues.get(key);
        if (q == null) {
          q = new RunQueue(key, classOf.get(key.type()));
          queues.add(q);
        }
      }
      if (front) {
        q.addFirst(proc);
      } else {
        q.addLast(proc);
      }
      if (q.enterRing()) {
        q.priorityClass().ring.addLast(q);
      }
      size++;
      wakeups.added();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Schedulable poll(long timeout, TimeUnit unit) throws InterruptedException {
    if (!running) {
      return null;
    }
    long nanos = unit.toNanos(timeout);
    lock.lockInterruptibly();
    try {
      while (size == 0) {
        if (!running || nanos <= 0) {
          return null;
        }
        nanos = wakeups.await(nanos, () -> size);
      }
      if (!running) {
        return null;
      }
      Schedulable next = takeNext();
      wakeups.taken(size);
      return next;
    } finally {
      lock.unlock();
    }
  }

  /** The head of the first queue of the highest non-empty class; rotates that ring. */
  private Schedulable takeNext() {
    for (PriorityClass c : classes) {
      RunQueue q = c.ring.pollFirst();
      if (q == null) {
        continue;
      }
      Schedulable proc = q.pollFirst();
      if (q.isEmpty()) {
        q.leaveRing();
        if (q != other) {
          queues.remove(q);
        }
      } else {
        c.ring.addLast(q);
      }
      size--;
      return proc;
    }
    throw new IllegalStateException("scheduler size is " + size + " but every ring is empty");
  }

  @Override
  public int size() {
    lock.lock();
    try {
      return size;
    } finally {
      lock.unlock();
    }
  }

  /** Number of resource queues that hold procedures (the "other" queue not counted). */
  public int queueCount() {
    lock.lock();
    try {
      return queues.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void clear() {
    lock.lock();
    try {
      queues.clear();
      for (PriorityClass c : classes) {
        c.ring.clear();
      }
      other.clear();
      other.leaveRing();
      size = 0;
    } finally {
      lock.unlock();
    }
  }

  /** The ring of non-empty queues of one priority. */
  static final class PriorityClass {
    final int priority;
    final ArrayDeque<RunQueue> ring = new ArrayDeque<>();

    PriorityClass(int priority) {
      this.priority = priority;
    }
  }

  /**
   * Configures the priority classes. Higher numbers are served first; resource types (and the
   * "other" class) with equal numbers share a class and are served round-robin together. Defaults:
   * NODE 30, DATABASE 20, REGION 10, other {@value #DEFAULT_OTHER_PRIORITY}.
   */
  public static final class Builder {
    private final EnumMap<ResourceType, Integer> priorities = new EnumMap<>(ResourceType.class);
    private int otherPriority = DEFAULT_OTHER_PRIORITY;

    private Builder() {
      priorities.put(ResourceType.NODE, 30);
      priorities.put(ResourceType.DATABASE, 20);
      priorities.put(ResourceType.REGION, 10);
    }

    /**
     * The priority of queues of resources of {@code type}; higher is served first. Bounds: any int;
     * types of equal priority share one class. Defaults: NODE 30, DATABASE 20, REGION 10.
     */
    public Builder priority(ResourceType type, int priority) {
      priorities.put(Objects.requireNonNull(type, "type"), priority);
      return this;
    }

    /**
     * The priority of the queue of procedures that name no resource. Bounds: any int. Default:
     * {@value #DEFAULT_OTHER_PRIORITY}, below every resource type.
     */
    public Builder otherPriority(int priority) {
      this.otherPriority = priority;
      return this;
    }

    /** A scheduler with these priorities. */
    public FairScheduler build() {
      return new FairScheduler(this);
    }
  }
}
