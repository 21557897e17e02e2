package dev.baton.confignode.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.datanode.DuplicateCommand;
import dev.baton.confignode.datanode.LedgerEntry;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drill's re-run check (one re-run of a step per leader term is a failover; two are a bug) and
 * its sender check (a secured cluster's DataNodes record which ConfigNode sent each command).
 */
@Timeout(10)
class DrillChecksTest {
  private static final String STEP = "CREATE_REGIONS/r1@dn1";

  @Test
  void oneRerunPerTermIsAFailoverEachTime() {
    List<String> found =
        DrillChecks.repeatedReruns(
            1,
            List.of(
                new DuplicateCommand(14, STEP, 4, "createRegion", 1),
                new DuplicateCommand(14, STEP, 5, "createRegion", 2)));
    assertTrue(found.isEmpty(), found.toString());
  }

  @Test
  void aSecondRerunInTheSameTermIsAViolation() {
    List<String> found =
        DrillChecks.repeatedReruns(
            2,
            List.of(
                new DuplicateCommand(14, STEP, 4, "createRegion", 1),
                new DuplicateCommand(15, STEP, 4, "createRegion", 2),
                new DuplicateCommand(14, STEP, 4, "createRegion", 3)));
    assertEquals(
        List.of("step " + STEP + " of procedure 14 re-ran 2 times in term 4 on DataNode 2"), found);
  }

  @Test
  void everyAppliedCommandMustNameOneOfTheConfigNodes() {
    Set<String> cluster = Set.of("cn1", "cn2", "cn3");
    List<String> found =
        DrillChecks.unknownSenders(
            3,
            List.of(applied(1, "cn2"), applied(2, null), applied(3, "cn9"), applied(4, "cn1")),
            cluster);
    assertEquals(2, found.size(), found.toString());
    assertTrue(
        found.get(0).contains("procedure 2") && found.get(0).contains("unnamed"), found.get(0));
    assertTrue(found.get(1).contains("procedure 3") && found.get(1).contains("cn9"), found.get(1));
  }

  private static LedgerEntry applied(long procId, String caller) {
    return new LedgerEntry(procId, STEP, 4, procId, "ping", null, null, procId, caller);
  }
}
