package dev.baton.it.hosts;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.ClusterHosts;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.hosts.NetnsHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A secured cluster (tokens, HTTPS, Raft over mutual TLS with certificates naming each host's
 * address) of 3 ConfigNodes and 3 DataNodes, each process on a host of its own in a network
 * namespace: it elects, commits, survives a leader SIGKILL, pauses and resumes a node (the
 * signalled process is the JVM in its namespace), and leaves no namespace behind.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class HostsModeTest {
  static final int NODES = 3;
  static final int DATANODES = 3;

  /** How long a signalled process may take to change its state. */
  static final Duration SIGNAL_WAIT = Duration.ofSeconds(10);

  /** The state letter /proc gives a stopped process. */
  static final String STOPPED = "T";

  @Test
  void aClusterAcrossNamespacesElectsCommitsAndSurvivesALeaderKill() throws Exception {
    try (ProcessCluster cluster =
        ProcessCluster.start(NODES, DATANODES, false, List.of(), ClusterHosts.NETNS)) {
      assertTrue(cluster.secured());
      assertEquals(ClusterHosts.NETNS, cluster.hosts());
      NetnsHosts hosts = cluster.netns().orElseThrow();
      for (String id : cluster.nodeIds()) {
        String address = hosts.address(id);
        assertNotEquals("127.0.0.1", address);
        assertTrue(cluster.http(id).startsWith(address + ":"), cluster.http(id));
        assertEquals(hosts.namespace(id), namespaceOf(cluster.pid(id)), id + " in its namespace");
        assertTrue(cluster.command(id).endsWith("/java"), "the signalled pid is the JVM");
      }
      for (int dn : cluster.dataNodeIds()) {
        assertTrue(
            cluster.dataNodeAddresses().get(dn - 1).startsWith(hosts.address("dn" + dn) + ":"));
      }

      long first =
          cluster.procedures().submit("CreateDatabase", ClusterProcedures.args("name", "db1"));
      assertEquals("SUCCESS", finished(cluster, first));

      String leader = cluster.leader();
      long term = cluster.term(leader);
      cluster.kill(leader);
      String next = cluster.awaitLeader(Set.of(leader), term);
      assertNotEquals(leader, next);
      long second =
          cluster.procedures().submit("CreateDatabase", ClusterProcedures.args("name", "db2"));
      assertEquals("SUCCESS", finished(cluster, second));
      assertEquals("SUCCESS", finished(cluster, first), "the first is kept across the failover");

      cluster.restart(leader);
      cluster.awaitAnswering(leader);
      assertEquals(hosts.namespace(leader), namespaceOf(cluster.pid(leader)));

      String follower =
          cluster.nodeIds().stream().filter(id -> !id.equals(next)).findFirst().orElseThrow();
      long pid = cluster.pid(follower);
      cluster.pause(follower);
      await("the JVM of " + follower + " stops")
          .atMost(SIGNAL_WAIT)
          .until(() -> STOPPED.equals(processState(pid)));
      cluster.resume(follower);
      await("the JVM of " + follower + " runs on")
          .atMost(SIGNAL_WAIT)
          .until(() -> !STOPPED.equals(processState(pid)));
      cluster.awaitAnswering(follower);
    }
    assertEquals(List.of(), Ip.namespaces(NetnsHosts.PREFIX), "every namespace is removed");
  }

  private static String finished(ProcessCluster cluster, long procId) throws Exception {
    JsonNode p = cluster.procedures().awaitFinished(procId, ProcessCluster.CLUSTER_WAIT);
    return p.get("state").asText();
  }

  /** The name of the namespace process {@code pid} runs in ({@code ip netns identify}). */
  static String namespaceOf(long pid) throws Exception {
    return Ip.ok("netns", "identify", Long.toString(pid)).strip();
  }

  /** The state letter of process {@code pid} in {@code /proc/PID/stat}. */
  static String processState(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[0];
  }
}
