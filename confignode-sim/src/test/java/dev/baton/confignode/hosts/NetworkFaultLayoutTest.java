package dev.baton.confignode.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How each partition kind is laid out around a leader, its followers and the DataNodes: which
 * one-way cuts it makes and who ends up in the minority (pure; {@code NetnsHostsTest} and {@code
 * PartitionMatrixTest} in integration-test put them in place).
 */
@Timeout(10)
class NetworkFaultLayoutTest {
  static final PartitionTargets FIVE =
      new PartitionTargets("cn3", List.of("cn1", "cn2", "cn4", "cn5"), List.of("dn1", "dn2"));

  static final PartitionTargets THREE =
      new PartitionTargets("cn1", List.of("cn2", "cn3"), List.of("dn1"));

  @Test
  void isolatingAFollowerCutsItFromEveryOtherHostBothWays() {
    Set<String> cut = pairs(NetworkFault.cutsOf(PartitionKind.ISOLATE_NODE, THREE));
    assertEquals(Set.of("cn2>cn1", "cn1>cn2", "cn2>cn3", "cn3>cn2", "cn2>dn1", "dn1>cn2"), cut);
    assertEquals(List.of("cn2"), NetworkFault.minorityOf(PartitionKind.ISOLATE_NODE, THREE));
  }

  @Test
  void anIsolatedLeaderStillReachesTheDataNodes() {
    Set<String> cut = pairs(NetworkFault.cutsOf(PartitionKind.ISOLATE_LEADER, FIVE));
    assertEquals(8, cut.size(), cut::toString);
    assertTrue(cut.stream().noneMatch(p -> p.contains("dn")), cut::toString);
    assertTrue(cut.containsAll(Set.of("cn3>cn1", "cn1>cn3", "cn3>cn5", "cn5>cn3")));
  }

  @Test
  void aSplitPutsTheLeaderAndOneFollowerInTheMinority() {
    List<String> minority = NetworkFault.minorityOf(PartitionKind.SPLIT_LEADER_MINORITY, FIVE);
    assertEquals(List.of("cn3", "cn1"), minority);
    Set<String> cut = pairs(NetworkFault.cutsOf(PartitionKind.SPLIT_LEADER_MINORITY, FIVE));
    assertEquals(12, cut.size(), "2 x 3 pairs, both ways: " + cut);
    assertFalse(cut.contains("cn3>cn1") || cut.contains("cn2>cn4"), cut::toString);
    assertTrue(cut.containsAll(Set.of("cn1>cn2", "cn2>cn1", "cn3>cn5")), cut::toString);
  }

  @Test
  void aBridgeCutsOnlyTheLeaderAndOneFollower() {
    assertEquals(
        Set.of("cn1>cn2", "cn2>cn1"), pairs(NetworkFault.cutsOf(PartitionKind.BRIDGE, THREE)));
    assertEquals(List.of(), NetworkFault.minorityOf(PartitionKind.BRIDGE, THREE));
  }

  @Test
  void oneWayLossDropsOnlyWhatTheLeaderSends() {
    assertEquals(
        Set.of("cn1>cn2", "cn1>cn3"), pairs(NetworkFault.cutsOf(PartitionKind.ONE_WAY, THREE)));
  }

  @Test
  void aDataNodeIsCutFromTheLeaderOnly() {
    assertEquals(
        Set.of("cn3>dn1", "dn1>cn3"),
        pairs(NetworkFault.cutsOf(PartitionKind.DATANODE_FROM_LEADER, FIVE)));
  }

  @Test
  void kindsThatDoNotFitAreRefused() {
    assertFalse(THREE.fits(PartitionKind.SPLIT_LEADER_MINORITY));
    assertTrue(FIVE.fits(PartitionKind.SPLIT_LEADER_MINORITY));
    assertFalse(
        new PartitionTargets("cn1", List.of("cn2", "cn3"), List.of())
            .fits(PartitionKind.DATANODE_FROM_LEADER));
    assertThrows(
        IllegalArgumentException.class,
        () -> new PartitionTargets("cn1", List.of("cn1", "cn2"), List.of()));
    assertEquals("split-leader-minority", PartitionKind.SPLIT_LEADER_MINORITY.flagValue());
  }

  private static Set<String> pairs(List<NetnsPartitions.Cut> cuts) {
    Set<String> out = new HashSet<>();
    for (NetnsPartitions.Cut c : cuts) {
      out.add(c.from() + ">" + c.to());
    }
    return out;
  }
}
