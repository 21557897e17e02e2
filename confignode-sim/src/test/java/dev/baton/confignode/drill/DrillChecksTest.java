package dev.baton.confignode.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.datanode.DuplicateCommand;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The drill's re-run check: one re-run of a step per leader term is a failover; two are a bug. */
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
}
