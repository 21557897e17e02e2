package dev.baton.confignode.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import java.io.File;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operator's console in a real headless Chromium (Debian's chromium and chromedriver, at fixed
 * paths; Selenium Manager off, so nothing is downloaded): it lists procedures, and an operator
 * aborts one from its page with a reason, after which it ends ROLLEDBACK. Each test saves a
 * screenshot under {@code target/console-screenshots/}.
 */
@Timeout(180)
class ConsoleBrowserTest {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
  static final Duration WAIT = Duration.ofSeconds(30);

  /** A sleep that outlives the test: it ends only by abort. */
  static final long LONG_SLEEP_MILLIS = 600_000;

  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 0);

  private static WebDriver browser;
  private static Path profile;

  @BeforeAll
  static void startBrowser() throws IOException {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      fail(
          "the console's browser tests need Debian's chromium and chromedriver at "
              + CHROMIUM
              + " and "
              + CHROMEDRIVER
              + ": apt-get install -y --no-install-recommends chromium chromium-driver (./test"
              + " does)");
    }
    System.setProperty("SE_AVOID_BROWSER_DOWNLOAD", "true");
    profile = Files.createTempDirectory("console-chromium");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,900",
        "--user-data-dir=" + profile);
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
    browser = new ChromeDriver(service, options);
  }

  @AfterAll
  static void stopBrowser() throws IOException {
    if (browser != null) {
      browser.quit();
    }
    if (profile != null) {
      try (var files = Files.walk(profile)) {
        files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  private static String base(ConfigNodeServer node) {
    return "http://" + SimCluster.http(node) + "/console/";
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
    browser.get(base(node) + "#" + view);
    if (browser.findElement(By.id("login")).isDisplayed()) {
      browser.findElement(By.id("token")).sendKeys("operator-token");
      browser.findElement(By.cssSelector("#login-form button")).click();
    }
  }

  private static WebDriverWait waiting() {
    return new WebDriverWait(browser, WAIT);
  }

  private static void screenshot(String name) throws IOException {
    Files.createDirectories(SCREENSHOTS);
    byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
    Files.write(SCREENSHOTS.resolve(name + ".png"), png);
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
