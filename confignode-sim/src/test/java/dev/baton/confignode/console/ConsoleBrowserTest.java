package dev.baton.confignode.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import java.io.IOException;
import java.net.HttpURLConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operator's console in a real headless Chromium (Debian's chromium and chromedriver, at fixed
 * paths; Selenium Manager off, so nothing is downloaded): it lists procedures, and an operator
 * aborts one from its page with a reason, after which it ends ROLLEDBACK. Each test saves a
 * screenshot under {@code target/console-screenshots/}.
 */
@Timeout(180)
class ConsoleBrowserTest {
  /** A sleep that outlives the test: it ends only by abort. */
  static final long LONG_SLEEP_MILLIS = 600_000;

  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 0);

  private static ConsoleBrowser console;
  private static WebDriver browser;

  @BeforeAll
  static void startBrowser() throws IOException {
    console = ConsoleBrowser.start();
    browser = console.driver();
  }

  @AfterAll
  static void stopBrowser() throws IOException {
    if (console != null) {
      console.close();
    }
  }

  private static long submitSleep(long millis) {
    RawHttp.Reply r =
        new RawHttp(SimCluster.http(CLUSTER.cluster().leader()))
            .post("/api/procedures", "{\"type\":\"Sleep\",\"args\":{\"millis\":" + millis + "}}");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    return r.json().path("procId").asLong();
  }

  /** Opens {@code view} of the console on {@code node}, entering a token when the page asks. */
  private static void open(ConfigNodeServer node, String view) {
    console.open(node, view, "operator-token");
  }

  private static WebDriverWait waiting() {
    return console.waiting();
  }

  private static void screenshot(String name) throws IOException {
    console.screenshot(name);
  }

  @Test
  void listsProceduresAndFollowsThemLive() throws IOException {
    long id = submitSleep(LONG_SLEEP_MILLIS);
    ConfigNodeServer follower =
        CLUSTER.cluster().nodes().stream()
            .filter(n -> n != CLUSTER.cluster().leader())
            .findFirst()
            .orElseThrow();
    open(follower, "procedures");
    By row = By.cssSelector("#proc-table tr[data-proc-id='" + id + "']");
    try {
      waiting().until(d -> !d.findElements(row).isEmpty());
    } catch (org.openqa.selenium.TimeoutException e) {
      screenshot("procedures-failed");
      fail(
          "procedure "
              + id
              + " not listed; page says: "
              + browser.findElement(By.tagName("main")).getText());
    }
    // the page redraws its rows as events arrive: read the row again until it says its type
    waiting()
        .ignoring(StaleElementReferenceException.class)
        .until(d -> d.findElement(row).getText().contains("Sleep"));
    waiting().until(d -> d.findElement(By.id("live")).getText().equals("live"));
    // a procedure submitted after the page loaded appears through the event stream
    long later = submitSleep(LONG_SLEEP_MILLIS);
    waiting()
        .until(
            d ->
                !d.findElements(By.cssSelector("#proc-table tr[data-proc-id='" + later + "']"))
                    .isEmpty());
    screenshot("procedures");
  }

  @Test
  void abortsAProcedureFromItsPageWithAReason() throws IOException {
    long id = submitSleep(LONG_SLEEP_MILLIS);
    open(CLUSTER.cluster().leader(), "procedure/" + id);
    waiting().until(d -> !d.findElements(By.id("action-abort")).isEmpty());
    browser.findElement(By.id("a-reason")).sendKeys("stuck in a test");
    browser.findElement(By.id("action-abort")).click();
    waiting().until(d -> d.findElement(By.id("a-result")).getText().contains("\"aborted\":true"));
    waiting().until(d -> d.findElement(By.id("p-state")).getText().equals("ROLLEDBACK"));
    screenshot("aborted");
  }
}
