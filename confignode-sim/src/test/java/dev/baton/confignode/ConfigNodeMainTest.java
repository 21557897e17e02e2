package dev.baton.confignode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ConfigNodeMainTest {
  @Test
  void unknownCommandIsAUsageErrorNamingTheCommands() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        ConfigNodeMain.run(
            new String[] {"explode"},
            new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(ConfigNodeMain.EXIT_USAGE, code);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("drill"));
  }
}
