package dev.baton.consensus.example;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.spi.LoopbackPorts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Embedding Baton" program: three copies of {@link EmbeddedConfigNode#main} form a
 * group over gRPC on loopback, run one procedure, and follow leadership when the leader stops; and
 * the README shows that program exactly as it is here.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EmbeddingExampleTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern ROLE = Pattern.compile("(?m)^(\\w+) is now (\\w+)$");
  private static final Pattern OUTCOME = Pattern.compile("(?m)^(\\w+): procedure (\\d+) (\\w+)$");
  private static final Path SOURCE =
      Path.of("src/test/java/dev/baton/consensus/example/EmbeddedConfigNode.java");
  private static final Path README = Path.of("../README.md");

  @TempDir Path dir;

  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final Map<String, Thread> members = new LinkedHashMap<>();
  private final Map<String, Throwable> failures = new ConcurrentHashMap<>();

  @Test
  void threeMembersRunTheProcedureOnceAndFollowTheLeaderWhenItStops() throws Exception {
    List<String> peers = new ArrayList<>();
    for (String id : List.of("a", "b", "c")) {
      peers.add(id + "=127.0.0.1:" + LoopbackPorts.free());
    }
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      for (String id : List.of("a", "b", "c")) {
        String[] args = {id, String.join(",", peers), dir.resolve(id).toString()};
        Thread t = new Thread(() -> runMain(id, args), "example-" + id);
        members.put(id, t);
        t.start();
      }
      await("every member's outcome")
          .atMost(WAIT)
          .until(() -> matches(OUTCOME).size() == 3 || !failures.isEmpty());
      assertEquals(Map.of(), failures);
      List<MatchResult> outcomes = matches(OUTCOME);
      for (MatchResult m : outcomes) {
        assertEquals(outcomes.get(0).group(2), m.group(2), "one procedure for one nonce: " + out());
        assertEquals("SUCCESS", m.group(3), out());
      }

      String leader =
          await("a member running as leader")
              .atMost(WAIT)
              .until(this::leader, Optional::isPresent)
              .orElseThrow();
      members.get(leader).interrupt();
      members.get(leader).join(WAIT.toMillis());
      await("another member running as leader, and the stopped one a follower")
          .atMost(WAIT)
          .until(
              () ->
                  leader().filter(l -> !l.equals(leader)).isPresent()
                      && "FOLLOWER".equals(lastRoles().get(leader)));
    } finally {
      for (Thread t : members.values()) {
        t.interrupt();
      }
      for (Thread t : members.values()) {
        t.join(WAIT.toMillis());
      }
      System.setOut(stdout);
    }
    assertEquals(Map.of(), failures, out());
  }

  @Test
  void theReadmeShowsTheExampleAsItIs() throws IOException {
    String source = Files.readString(SOURCE);
    int begin = source.indexOf("// README:begin embedding");
    int end = source.indexOf("// README:end embedding");
    assertTrue(begin >= 0 && end > begin, "the example's README region is marked");
    String region = source.substring(source.indexOf('\n', begin) + 1, end);

    String readme = Files.readString(README);
    int section = readme.indexOf("\n## Embedding Baton\n");
    assertTrue(section >= 0, "the README has a section 'Embedding Baton'");
    int open = readme.indexOf("```java\n", section);
    int close = readme.indexOf("\n```", open + 1);
    assertTrue(open >= 0 && close > open, "the section has a java code block");
    String block = readme.substring(open + "```java\n".length(), close);

    assertEquals(
        normalized(region),
        normalized(block),
        "README.md's 'Embedding Baton' block must be " + SOURCE + " between its README markers");
  }

  private void runMain(String id, String[] args) {
    try {
      EmbeddedConfigNode.main(args);
    } catch (InterruptedException stopped) {
      // the test stops a member by interrupting its main thread
    } catch (Throwable e) {
      failures.put(id, e);
    }
  }

  private String out() {
    return printed.toString(StandardCharsets.UTF_8);
  }

  private List<MatchResult> matches(Pattern p) {
    List<MatchResult> found = new ArrayList<>();
    Matcher m = p.matcher(out());
    while (m.find()) {
      found.add(m.toMatchResult());
    }
    return found;
  }

  /** Each member's latest role, as its role listener printed it. */
  private Map<String, String> lastRoles() {
    Map<String, String> last = new LinkedHashMap<>();
    for (MatchResult m : matches(ROLE)) {
      last.put(m.group(1), m.group(2));
    }
    return last;
  }

  /** The running member whose latest role is LEADER_RUNNING. */
  private Optional<String> leader() {
    return lastRoles().entrySet().stream()
        .filter(e -> e.getValue().equals("LEADER_RUNNING") && members.get(e.getKey()).isAlive())
        .map(Map.Entry::getKey)
        .findFirst();
  }

  private static String normalized(String code) {
    return code.strip().replaceAll("\\s+", " ");
  }
}
