package dev.baton.confignode.hosts;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link PartitionKind} in place on the hosts of a {@link NetnsPartitions}, laid out around
 * {@link PartitionTargets}: {@link #start} cuts (every cut verified by a probe before it returns),
 * {@link #heal} (and {@link #close}) removes every cut, verified likewise. A flapping partition
 * cuts and heals on a thread of its own until healed. One fault at a time per partitions object:
 * healing removes every cut on the hosts.
 */
public final class NetworkFault implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NetworkFault.class);

  /**
   * How long a flapping partition stays cut, and then healed, in turn: shorter than the default
   * election timeout's upper bound (600 ms), so a flap may or may not cost the leader its place.
   */
  public static final Duration FLAP_PERIOD = Duration.ofMillis(400);

  /** How long healing waits for the flapping thread to finish its current cut or heal. */
  static final Duration FLAPPER_STOP_WAIT = Duration.ofSeconds(30);

  private final PartitionKind kind;
  private final PartitionTargets targets;
  private final NetnsPartitions partitions;
  private final List<NetnsPartitions.Cut> cuts;
  private final CountDownLatch stop = new CountDownLatch(1);
  private Thread flapper;
  private volatile int flaps;
  private volatile RuntimeException flapFailure;
  private boolean healed;

  private NetworkFault(
      PartitionKind kind,
      PartitionTargets targets,
      NetnsPartitions partitions,
      List<NetnsPartitions.Cut> cuts) {
    this.kind = kind;
    this.targets = targets;
    this.partitions = partitions;
    this.cuts = List.copyOf(cuts);
  }

  /**
   * Puts {@code kind} in place around {@code targets}; returns once a probe showed every cut (a
   * flapping partition: its first cut).
   *
   * @throws IllegalArgumentException if the targets are too few for the kind
   */
  public static NetworkFault start(
      PartitionKind kind, PartitionTargets targets, NetnsPartitions partitions) {
    if (!targets.fits(kind)) {
      throw new IllegalArgumentException(
          kind
              + " needs "
              + kind.minConfigNodes()
              + " ConfigNodes"
              + (kind.needsDataNode() ? " and a DataNode" : "")
              + ", got "
              + targets);
    }
    NetworkFault f = new NetworkFault(kind, targets, partitions, cutsOf(kind, targets));
    try {
      partitions.cutAll(f.cuts);
    } catch (RuntimeException e) {
      partitions.heal();
      throw e;
    }
    if (kind == PartitionKind.FLAPPING) {
      f.startFlapping();
    }
    LOG.info("partition {} in place: {}", kind, f.cuts);
    return f;
  }

  /** The one-way cuts a kind makes around the targets. */
  static List<NetnsPartitions.Cut> cutsOf(PartitionKind kind, PartitionTargets t) {
    List<NetnsPartitions.Cut> out = new ArrayList<>();
    switch (kind) {
      case ISOLATE_NODE -> {
        String host = t.followers().get(0);
        for (String other : allHosts(t)) {
          if (!other.equals(host)) {
            bothWays(out, host, other);
          }
        }
      }
      case ISOLATE_LEADER, FLAPPING -> t.followers().forEach(f -> bothWays(out, t.leader(), f));
      case SPLIT_LEADER_MINORITY -> {
        List<String> minority = minorityOf(kind, t);
        for (String a : minority) {
          for (String b : t.configNodes()) {
            if (!minority.contains(b)) {
              bothWays(out, a, b);
            }
          }
        }
      }
      case BRIDGE -> bothWays(out, t.leader(), t.followers().get(0));
      case ONE_WAY -> t.followers().forEach(f -> out.add(new NetnsPartitions.Cut(t.leader(), f)));
      case DATANODE_FROM_LEADER -> bothWays(out, t.leader(), t.dataNodes().get(0));
    }
    return out;
  }

  /**
   * The ConfigNodes a kind leaves without a majority: for the kinds that depose the leader, the
   * leader and whoever is on its side; for {@link PartitionKind#ISOLATE_NODE} the isolated
   * follower; empty for the others.
   */
  public static List<String> minorityOf(PartitionKind kind, PartitionTargets t) {
    return switch (kind) {
      case ISOLATE_NODE -> List.of(t.followers().get(0));
      case ISOLATE_LEADER, ONE_WAY -> List.of(t.leader());
      case SPLIT_LEADER_MINORITY -> List.of(t.leader(), t.followers().get(0));
      case BRIDGE, FLAPPING, DATANODE_FROM_LEADER -> List.of();
    };
  }

  private static List<String> allHosts(PartitionTargets t) {
    List<String> all = new ArrayList<>(t.configNodes());
    all.addAll(t.dataNodes());
    return all;
  }

  private static void bothWays(List<NetnsPartitions.Cut> out, String a, String b) {
    out.add(new NetnsPartitions.Cut(a, b));
    out.add(new NetnsPartitions.Cut(b, a));
  }

  private void startFlapping() {
    flapper = new Thread(this::flap, "baton-flapping-partition");
    flapper.setDaemon(true);
    flapper.start();
  }

  /** Heals and cuts again, each after {@link #FLAP_PERIOD}, until {@link #heal}. */
  private void flap() {
    boolean cut = true;
    try {
      while (!stop.await(FLAP_PERIOD.toMillis(), TimeUnit.MILLISECONDS)) {
        if (cut) {
          partitions.heal();
        } else {
          partitions.cutAll(cuts);
          flaps++;
        }
        cut = !cut;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.warn("flapping partition stopped: {}", e.toString());
      flapFailure = e;
    }
  }

  public PartitionKind kind() {
    return kind;
  }

  public PartitionTargets targets() {
    return targets;
  }

  /** The ConfigNodes this partition leaves without a majority ({@link #minorityOf}). */
  public List<String> minority() {
    return minorityOf(kind, targets);
  }

  /** Times a flapping partition cut again after a heal (each verified by probes). */
  public int flaps() {
    return flaps;
  }

  /** What it cut, e.g. {@code cn1 -x-> cn2, cn2 -x-> cn1}. */
  public String describe() {
    return kind.flagValue() + " (" + kind.description() + "): " + cutPairs();
  }

  private String cutPairs() {
    Set<String> shown = new LinkedHashSet<>();
    for (NetnsPartitions.Cut c : cuts) {
      boolean back = cuts.contains(new NetnsPartitions.Cut(c.to(), c.from()));
      if (!back) {
        shown.add(c.toString());
      } else if (!shown.contains(c.to() + " -x- " + c.from())) {
        shown.add(c.from() + " -x- " + c.to());
      }
    }
    return shown.stream().collect(Collectors.joining(", "));
  }

  /**
   * Stops flapping, removes every cut and verifies with probes that each cut pair reaches each
   * other again. Idempotent.
   *
   * @throws IllegalStateException if a flapping thread failed or did not stop, or a probe still
   *     finds a cut
   */
  public synchronized void heal() throws InterruptedException {
    if (healed) {
      return;
    }
    healed = true;
    stop.countDown();
    if (flapper != null) {
      flapper.join(FLAPPER_STOP_WAIT.toMillis());
    }
    partitions.heal();
    LOG.info("partition {} healed", kind);
    if (flapper != null && flapper.isAlive()) {
      throw new IllegalStateException("the flapping partition's thread did not stop");
    }
    if (flapFailure != null) {
      throw new IllegalStateException("the flapping partition failed", flapFailure);
    }
  }

  @Override
  public void close() throws InterruptedException {
    heal();
  }
}
