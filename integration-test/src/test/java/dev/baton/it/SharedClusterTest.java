package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.ProcessCluster;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * A test class whose methods share one process cluster (JVM start-ups are the cost), in order, with
 * a database {@code db0} created first so there are regions to move.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class SharedClusterTest {
  /** {@code -Dbaton.keepDir=true} keeps the cluster's logs and data for a look afterwards. */
  static final String KEEP_DIR = "baton.keepDir";

  private final int nodes;
  private final int dataNodes;
  private final List<String> nodeFlags;
  protected ProcessCluster cluster;

  /**
   * A failed test leaves each node's view and a thread dump of every live ConfigNode (in its log,
   * kept with {@code -Dbaton.keepDir=true}) for a look at what was stuck.
   */
  @RegisterExtension
  final TestExecutionExceptionHandler reportOnFailure =
      (context, failure) -> {
        if (cluster != null) {
          System.out.println(
              "[cluster] when " + context.getDisplayName() + " failed: " + cluster.describeStuck());
        }
        throw failure;
      };

  protected SharedClusterTest(int nodes, int dataNodes) {
    this(nodes, dataNodes, List.of());
  }

  /** {@code nodeFlags} go to every ConfigNode's command line. */
  protected SharedClusterTest(int nodes, int dataNodes, List<String> nodeFlags) {
    this.nodes = nodes;
    this.dataNodes = dataNodes;
    this.nodeFlags = nodeFlags;
  }

  @BeforeAll
  void startCluster() throws Exception {
    cluster = ProcessCluster.start(nodes, dataNodes, Boolean.getBoolean(KEEP_DIR), nodeFlags);
    long db = cluster.procedures().submit("CreateDatabase", ClusterProcedures.args("name", "db0"));
    assertEquals("SUCCESS", Drills.awaitFinished(cluster, db).get("state").asText());
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }
}
