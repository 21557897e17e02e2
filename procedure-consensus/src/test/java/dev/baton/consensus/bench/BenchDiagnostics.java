package dev.baton.consensus.bench;

import dev.baton.consensus.ProcedureNode;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/**
 * What the benchmark prints besides its report: progress lines, and when a wait fails, how every
 * node stands and what its threads do.
 */
final class BenchDiagnostics {
  /** Stack frames per thread in the dump of a failed wait. */
  static final int DUMP_FRAMES = 12;

  private BenchDiagnostics() {}

  /** A progress line on stdout (the benchmark is a command-line tool). */
  static void log(String format, Object... args) {
    System.out.printf(Locale.ROOT, "[bench] " + format + "%n", args);
  }

  /** The stacks of the nodes' own threads and of the killer: what a hung wait is stuck behind. */
  static String threadDump() {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      String name = e.getKey().getName();
      if (!name.startsWith("baton-") && !name.startsWith("bench-")) {
        continue;
      }
      out.append("  ").append(name).append(' ').append(e.getKey().getState()).append('\n');
      StackTraceElement[] stack = e.getValue();
      for (int i = 0; i < Math.min(stack.length, DUMP_FRAMES); i++) {
        out.append("      at ").append(stack[i]).append('\n');
      }
    }
    return out.toString();
  }

  /** Role, Raft view, applied index and executor of every node; for the error of a failed wait. */
  static String clusterState(Collection<String> ids, Map<String, ProcedureNode<Object>> nodes) {
    StringBuilder out = new StringBuilder();
    for (String id : ids) {
      ProcedureNode<Object> n = nodes.get(id);
      out.append(out.length() > 0 ? "; " : "").append(id);
      if (n == null) {
        out.append(" closed");
        continue;
      }
      out.append(
          String.format(
              Locale.ROOT,
              " role=%s raftLeader=%s term=%d leaderId=%s applied=%s executor=%s",
              n.role(),
              n.isLeader(),
              n.term(),
              n.leaderId().orElse("?"),
              n.metrics().appliedIndex(),
              n.executor()
                  .map(
                      e ->
                          (e.isRunning() ? "running" : "STOPPED " + e.failure().orElse(null))
                              + " live "
                              + e.liveCount()
                              + " queued "
                              + e.queuedCount())
                  .orElse("none")));
      n.lastRecovery().ifPresent(r -> out.append(" lastRecovery=").append(r));
    }
    return out.toString();
  }
}
