package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The members' CPU time of a whole restart, spread over the machine's cores. */
@Timeout(30)
class RestartProbesTest {
  private static RestartProbes.WholeRestart restart(Map<String, Long> cpu) {
    return new RestartProbes.WholeRestart(5_000, 4_800, 2_000, 1, cpu, "");
  }

  @Test
  void theMembersCpuIsSummedAndSpreadOverTheCores() {
    RestartProbes.WholeRestart w =
        restart(Map.of("cn1", 1_500L, "cn2", 2_000L, "cn3", 1_700L, "cn4", 1_900L, "cn5", 1_800L));

    assertEquals(4_450, w.cpuOverCoresMillis(2));
    assertEquals(8_900, w.cpuOverCoresMillis(1));
  }

  @Test
  void aMemberWhoseCpuIsUnknownLeavesTheSumUnknown() {
    RestartProbes.WholeRestart w = restart(Map.of("cn1", 1_500L, "cn2", -1L, "cn3", 1_700L));

    assertEquals(-1, w.cpuOverCoresMillis(2));
  }
}
