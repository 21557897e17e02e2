package dev.baton.consensus;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.TextFormat;

/**
 * What a {@link TestCluster} wait that timed out tells besides "timed out": how each node stands at
 * the procedure level and at the Raft level (role, term, leader, log and commit indices, Ratis' own
 * role info with the time since it last heard a leader), and what the nodes' threads (Baton's,
 * Ratis', gRPC's) were doing. A liveness failure on a starved machine is then diagnosable from the
 * test report alone.
 */
final class ClusterDiagnostics {
  /** Stack frames printed per busy thread. */
  static final int DUMP_FRAMES = 14;

  /** A frame that marks an idle pool thread waiting for work; such threads are only counted. */
  private static final String IDLE_POOL_FRAME = "getTask";

  /** The top frame of an idle network event loop (gRPC's Netty); only counted too. */
  private static final String IDLE_EVENT_LOOP_FRAME = "epollWait";

  private ClusterDiagnostics() {}

  /** One line per node id: closed, or its procedure role and its Raft division's state. */
  static String nodes(Collection<String> ids, Map<String, ProcedureNode<Work.Env>> running) {
    StringBuilder out = new StringBuilder();
    for (String id : ids) {
      ProcedureNode<Work.Env> n = running.get(id);
      out.append("  ").append(id).append(": ");
      if (n == null) {
        out.append("closed\n");
        continue;
      }
      out.append("role=").append(n.role());
      out.append(" leaderChanges=").append(n.leaderChanges());
      n.lastRecovery().ifPresent(r -> out.append(" lastRecovery=").append(r));
      out.append(' ').append(raft(n.division())).append('\n');
    }
    return out.toString();
  }

  private static String raft(Optional<RaftServer.Division> division) {
    if (division.isEmpty()) {
      return "raft=none";
    }
    RaftServer.Division d = division.get();
    DivisionInfo info = d.getInfo();
    return String.format(
        Locale.ROOT,
        "raft=%s %s term=%d leader=%s ready=%s lastEntry=%s committed=%d applied=%d roleInfo={%s}",
        info.getLifeCycleState(),
        info.getCurrentRole(),
        info.getCurrentTerm(),
        info.getLeaderId(),
        info.isLeaderReady(),
        d.getRaftLog().getLastEntryTermIndex(),
        d.getRaftLog().getLastCommittedIndex(),
        info.getLastAppliedIndex(),
        TextFormat.shortDebugString(info.getRoleInfoProto()));
  }

  /**
   * Stacks of the threads of the cluster's nodes ({@code baton-*}, Ratis' threads named after a
   * node id, gRPC's executors); idle pool threads are only counted.
   */
  static String threads(Collection<String> ids) {
    StringBuilder out = new StringBuilder();
    int idle = 0;
    List<Map.Entry<Thread, StackTraceElement[]>> all =
        Thread.getAllStackTraces().entrySet().stream()
            .sorted(Comparator.comparing(e -> e.getKey().getName()))
            .toList();
    for (Map.Entry<Thread, StackTraceElement[]> e : all) {
      String name = e.getKey().getName();
      if (!ofCluster(name, ids)) {
        continue;
      }
      StackTraceElement[] stack = e.getValue();
      if (idlePoolThread(stack)) {
        idle++;
        continue;
      }
      out.append("  ").append(name).append(' ').append(e.getKey().getState()).append('\n');
      for (int i = 0; i < Math.min(stack.length, DUMP_FRAMES); i++) {
        out.append("      at ").append(stack[i]).append('\n');
      }
    }
    return out.append("  (")
        .append(idle)
        .append(" idle pool and event-loop threads not shown)\n")
        .toString();
  }

  private static boolean ofCluster(String name, Collection<String> ids) {
    if (name.startsWith("baton-") || name.startsWith("grpc-")) {
      return true;
    }
    for (String id : ids) {
      if (name.startsWith(id + "@") || name.startsWith(id + "-")) {
        return true;
      }
    }
    return false;
  }

  private static boolean idlePoolThread(StackTraceElement[] stack) {
    if (stack.length > 0 && stack[0].getMethodName().startsWith(IDLE_EVENT_LOOP_FRAME)) {
      return true;
    }
    for (StackTraceElement f : stack) {
      if (f.getMethodName().equals(IDLE_POOL_FRAME)) {
        return true;
      }
    }
    return false;
  }
}
