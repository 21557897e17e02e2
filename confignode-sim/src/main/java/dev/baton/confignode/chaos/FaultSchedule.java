package dev.baton.confignode.chaos;

import dev.baton.confignode.hosts.PartitionKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The faults of a chaos run, all derived from a seed, so a failing seed replays the same schedule.
 * Pure: no clock, no threads. Single-node ConfigNode faults never overlap by more than a minority
 * of the nodes, so the cluster keeps a majority through them; the one fault that takes the
 * majority, {@link FaultEvent.Action#KILL_ALL_NODES}, lasts at most the run's maximum majority
 * loss, overlaps no other ConfigNode fault, and comes at most once per {@link
 * #MIN_OUTAGE_SPACING_MILLIS}; a network partition (in a run with network faults) overlaps no other
 * ConfigNode fault either. The first faults use every kind once, in a seeded order, so even a short
 * run covers them all.
 */
public final class FaultSchedule {
  /** Shortest and longest pause between two faults. */
  static final long MIN_GAP_MILLIS = 1_500;

  static final long MAX_GAP_MILLIS = 4_000;

  /** Shortest and longest fault. */
  static final long MIN_FAULT_MILLIS = 1_000;

  static final long MAX_FAULT_MILLIS = 5_000;

  /**
   * How long the ConfigNodes may be without a majority (every one killed) unless the run sets
   * another bound: the scheduled outage, before the restart, never lasts longer.
   */
  public static final long DEFAULT_MAX_MAJORITY_LOSS_MILLIS = 3_000;

  /** Least time from one whole-cluster outage to the next, so the run mostly has a majority. */
  static final long MIN_OUTAGE_SPACING_MILLIS = 20_000;

  /** Commands a faulted DataNode fails before it is reset (or healed sooner). */
  public static final int DATANODE_FAILURES = 3;

  private final List<FaultEvent> events;

  private FaultSchedule(List<FaultEvent> events) {
    this.events = List.copyOf(events);
  }

  /**
   * {@link #generate(long, long, int, int, long, boolean)} without network faults: a seed gives the
   * same schedule it gave before network faults existed.
   */
  public static FaultSchedule generate(
      long seed, long millis, int nodes, int dataNodes, long maxMajorityLossMillis) {
    return generate(seed, millis, nodes, dataNodes, maxMajorityLossMillis, false);
  }

  /** {@link #generate(long, long, int, int, long)} with the default maximum majority loss. */
  public static FaultSchedule generate(long seed, long millis, int nodes, int dataNodes) {
    return generate(seed, millis, nodes, dataNodes, DEFAULT_MAX_MAJORITY_LOSS_MILLIS);
  }

  /**
   * The schedule of {@code seed} for a run of {@code millis} with {@code nodes} ConfigNodes and
   * {@code dataNodes} DataNodes (ids 1..dataNodes); every fault is healed by {@code millis}. A
   * whole-cluster outage lasts at most {@code maxMajorityLossMillis}; 0 schedules none. With {@code
   * network}, network partitions join the kinds of faults (those that fit the node count); a
   * partition overlaps no other ConfigNode fault.
   */
  public static FaultSchedule generate(
      long seed,
      long millis,
      int nodes,
      int dataNodes,
      long maxMajorityLossMillis,
      boolean network) {
    if (nodes < 1 || dataNodes < 0 || millis < 0 || maxMajorityLossMillis < 0) {
      throw new IllegalArgumentException(
          "need nodes >= 1, dataNodes >= 0, millis >= 0, maxMajorityLossMillis >= 0: "
              + nodes
              + ", "
              + dataNodes
              + ", "
              + millis
              + ", "
              + maxMajorityLossMillis);
    }
    Random random = new Random(seed);
    int minority = (nodes - 1) / 2;
    List<FaultEvent.Action> possible = new ArrayList<>();
    for (FaultEvent.Action a : FaultEvent.Action.values()) {
      boolean usable =
          a.partition().isPresent()
              ? network && partitionFits(a.partition().get(), nodes, dataNodes)
              : a.hitsDataNode()
                  ? dataNodes > 0
                  : a != FaultEvent.Action.KILL_ALL_NODES || maxMajorityLossMillis > 0;
      if (usable) {
        possible.add(a);
      }
    }
    List<FaultEvent.Action> unused = new ArrayList<>(possible);
    Collections.shuffle(unused, random);
    List<FaultEvent> out = new ArrayList<>();
    long t = gap(random);
    while (t < millis) {
      double length = random.nextDouble();
      int nodeTarget = random.nextInt(nodes);
      int dataNodeTarget = 1 + random.nextInt(Math.max(1, dataNodes));
      List<FaultEvent.Action> candidates =
          unused.isEmpty() ? List.of(possible.get(random.nextInt(possible.size()))) : unused;
      for (FaultEvent.Action action : candidates) {
        long duration = MIN_FAULT_MILLIS + (long) (length * (MAX_FAULT_MILLIS - MIN_FAULT_MILLIS));
        if (action == FaultEvent.Action.KILL_ALL_NODES) {
          duration = Math.min(duration, maxMajorityLossMillis);
        }
        duration = Math.min(duration, millis - t);
        int target = action.hitsDataNode() ? dataNodeTarget : nodeTarget;
        FaultEvent e = new FaultEvent(t, action, target, duration);
        if (duration > 0 && fits(out, e, minority)) {
          out.add(e);
          unused.remove(action);
          break;
        }
      }
      t += gap(random);
    }
    return new FaultSchedule(out);
  }

  private static boolean partitionFits(PartitionKind kind, int nodes, int dataNodes) {
    return nodes >= kind.minConfigNodes() && (!kind.needsDataNode() || dataNodes > 0);
  }

  private static boolean fits(List<FaultEvent> out, FaultEvent e, int minority) {
    if (e.action().hitsDataNode()) {
      return !sameDataNodeBusy(out, e);
    }
    if (e.action() == FaultEvent.Action.KILL_ALL_NODES) {
      return overlapping(out, e.atMillis(), true) == 0 && !outageWithinSpacing(out, e);
    }
    return overlapping(out, e.atMillis(), true) < minority && !sameNodeBusy(out, e);
  }

  private static boolean outageWithinSpacing(List<FaultEvent> events, FaultEvent next) {
    for (FaultEvent e : events) {
      if (e.action() == FaultEvent.Action.KILL_ALL_NODES
          && next.atMillis() < e.healAtMillis() + MIN_OUTAGE_SPACING_MILLIS) {
        return true;
      }
    }
    return false;
  }

  private static long gap(Random random) {
    return MIN_GAP_MILLIS + (long) (random.nextDouble() * (MAX_GAP_MILLIS - MIN_GAP_MILLIS));
  }

  /** ConfigNode faults still active at {@code t}. */
  static int overlapping(List<FaultEvent> events, long t, boolean configNodes) {
    int n = 0;
    for (FaultEvent e : events) {
      if (e.action().hitsConfigNode() == configNodes && e.atMillis() <= t && t < e.healAtMillis()) {
        n++;
      }
    }
    return n;
  }

  /**
   * A node fault while another is active would hit the same node if both name it, or if either aims
   * at "the leader" (who that is is known only when it runs) or at every node: keep them apart.
   */
  private static boolean sameNodeBusy(List<FaultEvent> events, FaultEvent next) {
    for (FaultEvent e : events) {
      if (e.action().hitsConfigNode() && next.atMillis() < e.healAtMillis()) {
        boolean leaderAimed = e.action().hitsAnyConfigNode() || next.action().hitsAnyConfigNode();
        if (leaderAimed || e.target() == next.target()) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean sameDataNodeBusy(List<FaultEvent> events, FaultEvent next) {
    for (FaultEvent e : events) {
      if (e.action().hitsDataNode()
          && e.target() == next.target()
          && next.atMillis() < e.healAtMillis()) {
        return true;
      }
    }
    return false;
  }

  public List<FaultEvent> events() {
    return events;
  }

  /** Most ConfigNodes faulted at one time by single-node faults (whole-cluster outages apart). */
  public int maxConcurrentNodeFaults() {
    List<FaultEvent> single =
        events.stream().filter(e -> e.action() != FaultEvent.Action.KILL_ALL_NODES).toList();
    int max = 0;
    for (FaultEvent e : single) {
      max = Math.max(max, overlapping(single, e.atMillis(), true));
    }
    return max;
  }

  /** The longest scheduled whole-cluster outage, 0 if none. */
  public long longestMajorityLossMillis() {
    return events.stream()
        .filter(e -> e.action() == FaultEvent.Action.KILL_ALL_NODES)
        .mapToLong(FaultEvent::durationMillis)
        .max()
        .orElse(0);
  }
}
