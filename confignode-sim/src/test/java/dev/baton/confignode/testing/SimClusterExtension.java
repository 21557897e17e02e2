package dev.baton.confignode.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link SimCluster} shared by the tests of a class: started before the first, faults cleared
 * after each, closed after the last, its directory deleted. Register as a static field with
 * {@code @RegisterExtension}.
 */
public final class SimClusterExtension
    implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
  private final int configNodes;
  private final int dataNodes;
  private final boolean tokens;
  private SimCluster cluster;
  private Path dir;

  public SimClusterExtension(int configNodes, int dataNodes) {
    this(configNodes, dataNodes, false);
  }

  private SimClusterExtension(int configNodes, int dataNodes, boolean tokens) {
    this.configNodes = configNodes;
    this.dataNodes = dataNodes;
    this.tokens = tokens;
  }

  /**
   * A cluster whose nodes require the tokens of {@link TestTokens} ({@link
   * SimCluster#startWithTokens}).
   */
  public static SimClusterExtension withTokens(int configNodes, int dataNodes) {
    return new SimClusterExtension(configNodes, dataNodes, true);
  }

  public SimCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("the cluster starts before the first test");
    }
    return cluster;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("simcluster-" + context.getRequiredTestClass().getSimpleName());
    cluster =
        tokens
            ? SimCluster.startWithTokens(dir, configNodes, dataNodes)
            : SimCluster.start(dir, configNodes, dataNodes);
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    if (dataNodes > 0) {
      cluster.resetFaults();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
      dir = null;
    }
  }
}
