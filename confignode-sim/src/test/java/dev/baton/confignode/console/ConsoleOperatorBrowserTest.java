package dev.baton.confignode.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.auth.Role;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.confignode.testing.TestDatabases;
import dev.baton.confignode.testing.TestTokens;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;

/**
 * What an operator sees and does on the console, in a real headless Chromium, on a 3-node cluster
 * with 3 DataNodes that requires tokens: a migration held by a stalled DataNode shows its why-stuck
 * chain naming the DataNode call; the locks page shows the migration holding its database's lock
 * and a deletion of that database waiting; an operator bypasses a long sleep from its page with a
 * reason, the leader is stopped, and the audit page of the new leader shows the bypass with the
 * operator's principal and the reason. The failover runs last, since it leaves two nodes.
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleOperatorBrowserTest {
  /** A sleep that outlives the test: it ends only by an operator's action. */
  static final long LONG_SLEEP_MILLIS = 600_000;

  private static final int REPLICATION = 1;
  private static final AtomicInteger DATABASE_COUNT = new AtomicInteger();
  private static final String OPERATOR = TestTokens.TOKENS.get(Role.OPERATOR);

  @RegisterExtension
  static final SimClusterExtension CLUSTER = SimClusterExtension.withTokens(3, 3);

  private static ConsoleBrowser console;

  @BeforeAll
  static void startBrowser() throws IOException {
    console = ConsoleBrowser.start();
  }

  @AfterAll
  static void stopBrowser() throws IOException {
    if (console != null) {
      console.close();
    }
  }

  private static SimCluster cluster() {
    return CLUSTER.cluster();
  }

  /** A migration held at its target's stalled call, and a deletion of its database behind it. */
  private record HeldMigration(String database, int target, long migration, long deletion) {
    static HeldMigration start() throws Exception {
      String database = "console" + DATABASE_COUNT.incrementAndGet();
      ClusterMetadata.Region r =
          TestDatabases.firstRegionOfNewDatabase(cluster(), database, REPLICATION);
      int target =
          cluster().dataNodeIds().stream()
              .filter(dn -> !r.replicas().contains(dn))
              .findFirst()
              .orElseThrow();
      cluster().dataNode(target).stall();
      long migration =
          cluster().submit("MigrateRegion", "regionId", r.id(), "from", r.leader(), "to", target);
      SimCluster.waiting().until(() -> cluster().dataNode(target).state().faults().waiting() == 1);
      long deletion = cluster().submit("DeleteDatabase", "name", database);
      return new HeldMigration(database, target, migration, deletion);
    }

    void release() throws Exception {
      cluster().dataNode(target).releaseStall();
      cluster().awaitSuccess(migration);
      cluster().awaitSuccess(deletion);
    }
  }

  /** The texts of the elements {@code selector} finds, read again while the page redraws them. */
  private static List<String> texts(String selector) {
    return console
        .waiting()
        .ignoring(StaleElementReferenceException.class)
        .until(
            d ->
                d.findElements(By.cssSelector(selector)).stream()
                    .map(WebElement::getText)
                    .toList());
  }

  @Test
  @Order(1)
  void aMigrationHeldByADataNodeShowsItsWhyChainNamingTheCall() throws Exception {
    HeldMigration held = HeldMigration.start();
    try {
      String call = "in call create_region ADD_PEER to DataNode " + held.target();
      console.open(cluster().follower(), "procedure/" + held.migration(), OPERATOR);
      console.waiting().until(d -> texts("#p-why li").stream().anyMatch(t -> t.contains(call)));
      List<String> chain = texts("#p-why li");
      assertTrue(
          chain.get(0).startsWith("#" + held.migration() + " MigrateRegion RUNNABLE: " + call),
          chain.toString());
      assertTrue(
          chain
              .get(chain.size() - 1)
              .startsWith("root cause: procedure " + held.migration() + ": " + call),
          chain.toString());
      // the follower's page shows the leader's wait in the procedure's own fields too
      assertTrue(console.text("p-waits-on").startsWith(call), console.text("p-waits-on"));
      assertTrue(
          console.text("p-blockedOn").contains("\"kind\":\"externalCall\""),
          console.text("p-blockedOn"));
      assertEquals("–", console.text("p-parent"));
      console.screenshot("why-migration");

      // the deletion's page follows the lock to the migration and on to the same call
      console.open(cluster().follower(), "procedure/" + held.deletion(), OPERATOR);
      console
          .waiting()
          .until(
              d -> texts("#p-why li").stream().anyMatch(t -> t.contains("#" + held.migration())));
      List<String> through = texts("#p-why li");
      assertEquals(3, through.size(), through.toString());
      assertTrue(
          through.get(0).contains("waiting for lock database:" + held.database()),
          through.toString());
      assertTrue(through.get(1).contains(call), through.toString());
      assertTrue(
          console.text("p-waits-on").startsWith("waiting for lock database:" + held.database()),
          console.text("p-waits-on"));
      console.screenshot("why-deletion");
    } finally {
      held.release();
    }
  }

  @Test
  @Order(2)
  void theLocksPageShowsTheHolderAndTheWaiter() throws Exception {
    HeldMigration held = HeldMigration.start();
    try {
      console.open(cluster().follower(), "locks", OPERATOR);
      String row = "#lock-table tr[data-resource='database:" + held.database() + "']";
      console.waiting().until(d -> texts(row + " td.waiters .badge").size() == 1);
      assertEquals(
          List.of("#" + held.migration() + " MigrateRegion SHARED"),
          texts(row + " td.holders .badge"));
      assertEquals(
          List.of("#" + held.deletion() + " DeleteDatabase EXCLUSIVE"),
          texts(row + " td.waiters .badge"));
      assertTrue(console.text("l-deadlocks").endsWith(": 0"), console.text("l-deadlocks"));
      assertEquals(List.of("none"), texts("#l-cycles li"));
      assertEquals(
          "#procedure/" + held.migration(),
          console
              .driver()
              .findElement(By.cssSelector(row + " td.holders .badge"))
              .getDomAttribute("href"));
      console.screenshot("locks");
    } finally {
      held.release();
    }
  }

  @Test
  @Order(3)
  void aBypassFromThePageIsInTheAuditOfTheNextLeader() throws Exception {
    long id = cluster().submit("Sleep", "millis", LONG_SLEEP_MILLIS);
    SimCluster.waiting()
        .until(
            () -> cluster().info(id).map(ProcedureInfo::state).orElse(null),
            ProcedureState.WAITING_TIMEOUT::equals);
    ConfigNodeServer leader = cluster().leader();
    console.open(leader, "procedure/" + id, OPERATOR);
    console.waiting().until(d -> !d.findElements(By.id("action-bypass")).isEmpty());
    String reason = "sleep stuck in the browser drill";
    console.driver().findElement(By.id("a-reason")).sendKeys(reason);
    console.driver().findElement(By.id("action-bypass")).click();
    console.waiting().until(d -> !console.text("a-result").isEmpty());
    assertTrue(console.text("a-result").startsWith("bypass: "), console.text("a-result"));
    assertTrue(
        console
            .text("a-result")
            .contains("\"principal\":\"" + TestTokens.name(Role.OPERATOR) + "\""),
        console.text("a-result"));
    console.waiting().until(d -> console.text("p-state").equals("SUCCESS"));
    console.screenshot("bypassed");

    cluster().stopNode(leader);
    ConfigNodeServer next = cluster().leader();
    assertNotSame(leader, next);
    console.open(next, "audit", OPERATOR);
    String row = "#audit-table tr[data-proc-id='" + id + "']";
    console.waiting().until(d -> !texts(row).isEmpty());
    assertEquals(List.of("bypass"), texts(row + " td.action"));
    assertEquals(List.of(TestTokens.name(Role.OPERATOR)), texts(row + " td.principal"));
    assertEquals(List.of(reason), texts(row + " td.reason"));
    console.waiting().until(d -> texts(row + " td.outcome").get(0).startsWith("done"));
    console.screenshot("audit-after-failover");
  }
}
