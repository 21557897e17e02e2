package dev.baton.confignode.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ChildJvmTest {

  @Test
  void mainClassNamesTheJarsEntryPoint() throws Exception {
    Method main = Class.forName(ChildJvm.MAIN_CLASS).getMethod("main", String[].class);
    assertTrue(Modifier.isStatic(main.getModifiers()), "main must be static");
    assertEquals(void.class, main.getReturnType());
  }

  @Test
  void extraFlagsAreSplitAtWhiteSpace() {
    assertEquals(List.of(), ChildJvm.extraFlags(""));
    assertEquals(List.of(), ChildJvm.extraFlags(" \t "));
    assertEquals(
        List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
        ChildJvm.extraFlags("  -XX:TieredStopAtLevel=1 \t -XX:+UseSerialGC "));
  }

  @Test
  void aWordThatIsNoFlagIsRefusedByName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ChildJvm.extraFlags("-XX:+UseSerialGC TieredStopAtLevel=1"));
    assertTrue(e.getMessage().contains(ChildJvm.FLAGS_PROPERTY), e.getMessage());
    assertTrue(e.getMessage().contains("'TieredStopAtLevel=1'"), e.getMessage());
  }

  @Test
  void theChildRunsWithTheExtraFlags() throws IOException, InterruptedException {
    List<String> flags =
        ChildJvm.extraFlags(
            "-XX:TieredStopAtLevel=1 -XX:+UnlockDiagnosticVMOptions -XX:+PrintFlagsFinal");
    Process p =
        new ProcessBuilder(ChildJvm.command(flags, List.of("--version")))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the child exits");
    assertEquals(0, p.exitValue(), out);
    assertTrue(
        out.lines().anyMatch(l -> l.matches("\\s*intx TieredStopAtLevel\\s+= 1\\s.*")),
        "the child's final flags:\n" + out);
  }
}
