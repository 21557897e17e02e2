package dev.baton.consensus.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.spi.LoopbackPorts.Range;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class LoopbackPortsTest {
  static final int PORTS = 50;

  /** Ports handed out are outside the range outgoing connections take theirs from, and unique. */
  @Test
  void portsOfThisMachineAreOutsideItsEphemeralRangeDistinctAndBindable() throws Exception {
    Range ephemeral = LoopbackPorts.ephemeralRange();
    boolean roomOutside = ephemeral.below() + ephemeral.above() >= LoopbackPorts.MIN_CANDIDATES;
    drawAndCheck(ephemeral, roomOutside);
  }

  /** Linux's default range: ports below it and in the few thousand above it. */
  @Test
  void aRangeThatStopsShortOfTheLastPortLeavesPortsOnBothSides() throws Exception {
    drawAndCheck(LoopbackPorts.DEFAULT_EPHEMERAL, true);
  }

  /** A range from 1024 to 60999 (some containers): ports only above it. */
  @Test
  void aRangeStartingLowLeavesPortsAboveIt() throws Exception {
    drawAndCheck(new Range(1024, 60_999), true);
  }

  /** A range of nearly every port: the kernel chooses, still never a port handed out before. */
  @Test
  void aRangeOfEveryPortFallsBackToTheKernelWithoutRepeats() throws Exception {
    drawAndCheck(new Range(1024, LoopbackPorts.HIGHEST), false);
  }

  private static void drawAndCheck(Range ephemeral, boolean outside) throws IOException {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < PORTS; i++) {
      int port = LoopbackPorts.free(ephemeral);
      assertTrue(seen.add(port), "port " + port + " handed out twice");
      assertTrue(port >= 1 && port <= LoopbackPorts.HIGHEST, "port " + port);
      if (outside) {
        assertFalse(ephemeral.contains(port), "port " + port + " inside " + ephemeral);
        assertTrue(port >= LoopbackPorts.LOWEST, "port " + port + " below " + LoopbackPorts.LOWEST);
      }
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        assertEquals(port, s.getLocalPort());
      }
    }
  }
}
