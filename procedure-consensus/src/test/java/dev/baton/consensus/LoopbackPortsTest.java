package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
  void portsAreBelowTheEphemeralRangeDistinctAndBindable() throws Exception {
    int ephemeralStart = LoopbackPorts.ephemeralStart();
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < PORTS; i++) {
      int port = LoopbackPorts.free();
      assertTrue(seen.add(port), "port " + port + " handed out twice");
      if (ephemeralStart - LoopbackPorts.LOWEST >= LoopbackPorts.MIN_RANGE) {
        assertTrue(
            port >= LoopbackPorts.LOWEST && port < ephemeralStart,
            "port " + port + " not in [" + LoopbackPorts.LOWEST + ", " + ephemeralStart + ")");
      }
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        assertEquals(port, s.getLocalPort());
      }
    }
  }
}
