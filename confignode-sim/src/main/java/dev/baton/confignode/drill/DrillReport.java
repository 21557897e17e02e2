package dev.baton.confignode.drill;

import dev.baton.confignode.cluster.ClusterHosts;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What the drill measured and prints: the failover timeline (epoch ms), outcomes, re-executed and
 * rejected commands, throughput; and the drill's progress lines.
 */
final class DrillReport {
  static final double MILLIS_PER_SECOND = 1000.0;

  final long started = System.currentTimeMillis();

  /** The group's members before any membership change. */
  String initialMembers;

  /**
   * The membership timeline, a line per change: when it was submitted (s after the drill started),
   * what, how it ended, the members after it.
   */
  final List<String> membership = new ArrayList<>();

  /** When the leader was killed, or cut off (epoch ms). */
  long killAt;

  /** Whether the leader was cut off instead of killed. */
  boolean partition;

  long steppedDownAt;
  long executorStoppedAt;
  long healedAt;
  long oldLeaderCaughtUpAt;

  /** Why the old leader did not catch up after the heal, if it did not. */
  String notCaughtUp;

  long electedAt;
  long runningAt;
  long firstStepAt;
  long oldTerm;
  long newTerm;
  long rebuilt;
  long staleRejected;
  long superseded;
  long duplicates;
  long wallMillis;
  int procedures;
  String newLeader;

  /**
   * Whether the cluster was secured: tokens (the workload ran as the admin principal), HTTPS, Raft
   * over mutual TLS, DataNodes over mutual TLS.
   */
  boolean secured;

  /** Where the processes ran. */
  ClusterHosts hosts = ClusterHosts.LOOPBACK;

  /** Root procedures by "type state". */
  final Map<String, Integer> outcomes = new TreeMap<>();

  /** DataNode commands in the ledgers by the ConfigNode that sent them (secured clusters only). */
  final Map<String, Integer> senders = new TreeMap<>();

  private final PrintStream out;

  DrillReport(PrintStream out) {
    this.out = out;
  }

  /** The election was seen: the first time after the kill counts. */
  void electionSeen() {
    if (killAt > 0 && electedAt == 0) {
      electedAt = System.currentTimeMillis();
    }
  }

  /** What happened to the leader: "SIGKILL" or "cut". */
  String faultName() {
    return partition ? "cut" : "SIGKILL";
  }

  void progress(String format, Object... args) {
    out.printf(
        Locale.ROOT,
        "[drill %5.1fs] " + format + "%n",
        Stream.concat(Stream.of((System.currentTimeMillis() - started) / 1000.0), Stream.of(args))
            .toArray());
    out.flush();
  }

  void print(Drill.Settings settings, Path dir) {
    out.println();
    out.println("=== Baton drill report ===");
    out.printf(
        Locale.ROOT,
        "cluster: %d ConfigNodes, %d DataNodes (processes), dir %s%n",
        settings.nodes(),
        settings.dataNodes(),
        dir);
    out.println(
        hosts == ClusterHosts.NETNS
            ? "hosts: netns (each process on a host of its own: a network namespace with its own"
                + " address, joined by a bridge)"
            : "hosts: loopback (every process on 127.0.0.1)");
    out.println(
        secured
            ? "admin API: HTTPS, tokens on (admin, operator and reader principals; the workload"
                + " runs as the admin)"
            : "admin API: HTTP, tokens off (loopback, anyone on this host)");
    out.println(
        secured
            ? "raft: mutual TLS (certificates naming each member, of a throwaway CA)"
            : "raft: plain text (loopback)");
    out.println(
        secured
            ? "DataNodes: HTTPS with client certificates of the CA; commands from ConfigNode"
                + " certificates only, each recorded with its sender"
            : "DataNodes: HTTP (loopback, anyone on this host may send commands)");
    out.println("timeline (ms after the " + faultName() + " of the leader):");
    out.printf(
        Locale.ROOT,
        "  %-34s 0%n",
        (partition ? "cut of leader" : "kill of leader") + " (term " + oldTerm + ")");
    out.printf(
        Locale.ROOT,
        "  new leader %s elected (term %d) %6d%n",
        newLeader,
        newTerm,
        electedAt - killAt);
    out.printf(
        Locale.ROOT, "  executor recovered (%d procedures) %6d%n", rebuilt, runningAt - killAt);
    out.printf(
        Locale.ROOT,
        "  first step of the new term         %6s%n",
        firstStepAt == 0 ? "none" : Long.toString(firstStepAt - killAt));
    if (partition) {
      out.printf(Locale.ROOT, "  old leader stepped down            %6d%n", steppedDownAt - killAt);
      out.printf(
          Locale.ROOT, "  old leader's executor stopped      %6d%n", executorStoppedAt - killAt);
      out.printf(Locale.ROOT, "  partition healed                   %6d%n", healedAt - killAt);
      out.printf(
          Locale.ROOT,
          "  old leader caught up               %6s%n",
          oldLeaderCaughtUpAt == 0 ? "not yet" : Long.toString(oldLeaderCaughtUpAt - killAt));
    }
    if (!membership.isEmpty()) {
      out.println(
          "membership timeline (s after the drill started, change, outcome, members after):");
      out.printf(Locale.ROOT, "  %7s    %-40s members %s%n", "start", "", initialMembers);
      membership.forEach(line -> out.println("  " + line));
    }
    out.println("outcomes (root procedures):");
    outcomes.forEach((k, v) -> out.printf(Locale.ROOT, "  %-32s %d%n", k, v));
    out.printf(
        Locale.ROOT, "re-executed DataNode commands (answered from the ledger): %d%n", duplicates);
    if (!senders.isEmpty()) {
      out.println("DataNode commands in the ledgers by sender: " + senders);
    }
    out.printf(Locale.ROOT, "stale-term commands rejected by DataNodes: %d%n", staleRejected);
    out.printf(Locale.ROOT, "overtaken commands refused by DataNodes: %d%n", superseded);
    out.printf(
        Locale.ROOT,
        "throughput: %d procedures in %.1f s of workload (phases 1-3) = %.1f procedures/s%n",
        procedures,
        wallMillis / 1000.0,
        procedures * 1000.0 / wallMillis);
  }
}
