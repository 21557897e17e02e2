package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member whose storage directory was wiped is refused at start with an error that says what to do
 * (see {@link LostStorageCheck} for why it may not rejoin); the others keep working.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WipedStorageTest {
  @TempDir Path dir;

  @Test
  void aMemberRestartedOnAWipedDirectoryIsRefusedWithAClearErrorAndTheOthersKeepWorking()
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      long before = leader.submit(new Work("before"), null).get(30, TimeUnit.SECONDS);
      ProcedureNodeTest.awaitFinished(leader, before);
      cluster.awaitSameTables();
      String victim = cluster.follower().nodeId();
      cluster.kill(victim);
      Path storage = cluster.storageDir(victim);
      try (Stream<Path> files = Files.walk(storage)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }

      LostStorageCheck.LostStorageException refused =
          assertThrows(LostStorageCheck.LostStorageException.class, () -> cluster.start(victim));
      assertTrue(refused.getMessage().contains(storage.toString()), refused.getMessage());
      assertTrue(refused.getMessage().contains("backup"), refused.getMessage());

      long after = leader.submit(new Work("after"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, after).state());
    }
  }
}
