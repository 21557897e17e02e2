package dev.baton.confignode.console;

import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.SimCluster;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Chromium for the console's browser tests: Debian's chromium and chromedriver at fixed
 * paths, Selenium Manager off (nothing is downloaded), a throw-away profile. Opens a view of the
 * console on a node, entering a token when the page asks, and saves screenshots under {@code
 * target/console-screenshots/}.
 */
final class ConsoleBrowser implements AutoCloseable {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
  static final Duration WAIT = Duration.ofSeconds(30);

  private final WebDriver driver;
  private final Path profile;

  private ConsoleBrowser(WebDriver driver, Path profile) {
    this.driver = driver;
    this.profile = profile;
  }

  /** Starts Chromium; fails the test with the packages to install when it is missing. */
  static ConsoleBrowser start() throws IOException {
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
    Path profile = Files.createTempDirectory("console-chromium");
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
    return new ConsoleBrowser(new ChromeDriver(service, options), profile);
  }

  WebDriver driver() {
    return driver;
  }

  /** Opens {@code view} of the console on {@code node}, entering {@code token} when asked. */
  void open(ConfigNodeServer node, String view, String token) {
    driver.get("http://" + SimCluster.http(node) + "/console/#" + view);
    if (driver.findElement(By.id("login")).isDisplayed()) {
      driver.findElement(By.id("token")).sendKeys(token);
      driver.findElement(By.cssSelector("#login-form button")).click();
    }
  }

  /** A wait that reads again an element the page redrew meanwhile (it redraws on every change). */
  WebDriverWait waiting() {
    WebDriverWait wait = new WebDriverWait(driver, WAIT);
    wait.ignoring(StaleElementReferenceException.class);
    return wait;
  }

  /** The text of the element with this id, as the page shows it now. */
  String text(String id) {
    return driver.findElement(By.id(id)).getText();
  }

  /** The texts of the elements {@code selector} finds, read again while the page redraws them. */
  List<String> texts(String selector) {
    return waiting()
        .until(
            d ->
                d.findElements(By.cssSelector(selector)).stream()
                    .map(WebElement::getText)
                    .toList());
  }

  void screenshot(String name) throws IOException {
    Files.createDirectories(SCREENSHOTS);
    byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
    Files.write(SCREENSHOTS.resolve(name + ".png"), png);
  }

  @Override
  public void close() throws IOException {
    driver.quit();
    try (Stream<Path> files = Files.walk(profile)) {
      files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    }
  }
}
