package dev.baton.it.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.hosts.NetnsHosts;
import dev.baton.confignode.hosts.NetnsPartitions;
import dev.baton.confignode.hosts.NetnsPartitions.Cut;
import dev.baton.confignode.hosts.Reach;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hosts in network namespaces, built for real (root and iproute2): each reaches the others and the
 * test process and nothing beyond its subnet; a cut, a one-way cut and an isolation take effect and
 * heal, each seen by probe connections; what a crashed run left is removed, and closing removes
 * everything.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NetnsHostsTest {
  /** A port nothing listens on: a reachable host refuses. */
  static final int PORT = 9;

  /** An address outside the hosts' subnet (TEST-NET-2): no host has a route to it. */
  static final String OUTSIDE = "198.51.100.1";

  @Test
  void eachHostReachesTheOthersAndTheTestProcessAndNothingElse() throws Exception {
    try (NetnsHosts hosts = NetnsHosts.open()) {
      for (String h : List.of("a", "b", "c")) {
        hosts.addHost(h);
      }
      for (String from : hosts.hosts()) {
        String routes = Ip.ok("-n", hosts.namespace(from), "-4", "route", "show");
        assertEquals(1, routes.strip().lines().count(), routes);
        assertFalse(routes.contains("default"), routes);
        assertTrue(hosts.probeFromTestSide(from, PORT).reached(), from);
        for (String to : hosts.hosts()) {
          assertTrue(hosts.probe(from, to, PORT).reached(), from + " -> " + to);
        }
      }
      assertEquals(
          Reach.UNREACHABLE,
          hosts.probeAddress("a", OUTSIDE, PORT),
          "no route beyond the hosts' subnet");
      String address = hosts.address("b");
      assertTrue(address.startsWith("192.0.2."), address);
    }
  }

  @Test
  void cutsOneWayCutsAndIsolationTakeEffectAndHeal() throws Exception {
    try (NetnsHosts hosts = NetnsHosts.open()) {
      for (String h : List.of("a", "b", "c")) {
        hosts.addHost(h);
      }
      NetnsPartitions net = hosts.partitions();
      net.heal(); // nothing to heal yet
      assertEquals(Set.of(), net.cuts());

      net.cut("a", "b");
      assertEquals(Set.of(new Cut("a", "b"), new Cut("b", "a")), net.cuts());
      assertFalse(hosts.probe("a", "b", PORT).reached());
      assertFalse(hosts.probe("b", "a", PORT).reached());
      assertTrue(hosts.probe("a", "c", PORT).reached());
      assertTrue(hosts.probe("c", "b", PORT).reached());
      net.heal();
      assertEquals(Set.of(), net.cuts());
      assertTrue(hosts.probe("a", "b", PORT).reached());
      assertTrue(hosts.probe("b", "a", PORT).reached());

      net.cutOneWay("a", "b");
      assertEquals(Reach.UNREACHABLE, hosts.probe("a", "b", PORT), "a's kernel drops it");
      assertEquals(
          Reach.TIMED_OUT, hosts.probe("b", "a", PORT), "b's SYN arrives, a's answer is dropped");
      assertTrue(hosts.probe("c", "a", PORT).reached());
      net.heal();
      assertTrue(hosts.probe("a", "b", PORT).reached());

      net.isolate("c");
      for (String other : List.of("a", "b")) {
        assertFalse(hosts.probe("c", other, PORT).reached(), "c -> " + other);
        assertFalse(hosts.probe(other, "c", PORT).reached(), other + " -> c");
      }
      assertTrue(hosts.probe("a", "b", PORT).reached());
      assertTrue(hosts.probeFromTestSide("c", PORT).reached(), "the test process still sees c");
      net.heal();
      for (String other : List.of("a", "b")) {
        assertTrue(hosts.probe("c", other, PORT).reached(), "c -> " + other);
      }
    }
  }

  @Test
  void leftoversOfACrashedRunAreRemovedAndCloseRemovesEverything() throws Exception {
    String deadNs = NetnsHosts.PREFIX + "dead-x";
    String deadLink = NetnsHosts.PREFIX + "dead";
    Ip.ok("netns", "add", deadNs);
    Ip.ok("link", "add", deadLink, "type", "veth", "peer", "name", "up", "netns", deadNs);
    assertEquals(List.of(deadNs), Ip.namespaces(deadNs));

    List<String> during;
    String address;
    try (NetnsHosts hosts = NetnsHosts.open()) {
      assertEquals(List.of(), Ip.namespaces(deadNs), "the leftover namespace is gone");
      assertEquals(List.of(), Ip.rootLinks(deadLink), "the leftover link is gone");
      address = hosts.addHost("a");
      during = Ip.namespaces(NetnsHosts.PREFIX);
      assertEquals(2, during.size(), "the bridge's and a's: " + during);
      assertEquals(1, Ip.rootLinks(NetnsHosts.PREFIX).size());
    }
    assertEquals(List.of(), Ip.namespaces(NetnsHosts.PREFIX));
    assertEquals(List.of(), Ip.rootLinks(NetnsHosts.PREFIX));
    Ip.Output late = Ip.run("route", "get", address);
    assertTrue(
        late.exitCode() != 0 && !late.text().contains(" dev "),
        "a late packet to a removed host goes nowhere: " + late.text());
  }
}
