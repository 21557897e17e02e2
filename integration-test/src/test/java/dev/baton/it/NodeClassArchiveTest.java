package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.cluster.NodeClassArchive;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The child JVMs of a process cluster get a class data archive of their class path that the JDK
 * maps ({@code -Xshare:on} refuses to start a JVM whose archive it cannot use), and a class path
 * whose jars come first.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class NodeClassArchiveTest {
  static final String FLAG = "-XX:SharedArchiveFile=";

  /** How long the check JVM may take. */
  static final long CHECK_SECONDS = 60;

  @Test
  void aChildJvmMapsTheArchiveOfItsClassPath() throws Exception {
    List<String> flags = NodeClassArchive.jvmFlags();
    assertEquals(1, flags.size(), "flags " + flags);
    assertTrue(flags.get(0).startsWith(FLAG), flags.get(0));
    assertTrue(Files.isRegularFile(Path.of(flags.get(0).substring(FLAG.length()))));

    Process check =
        new ProcessBuilder(
                NodeClassArchive.java(),
                "-Xshare:on",
                flags.get(0),
                "-cp",
                NodeClassArchive.childClassPath(),
                "-version")
            .redirectErrorStream(true)
            .start();
    String out = new String(check.getInputStream().readAllBytes());
    assertTrue(check.waitFor(CHECK_SECONDS, TimeUnit.SECONDS));
    assertEquals(0, check.exitValue(), out);
    assertEquals(flags, NodeClassArchive.jvmFlags(), "built once");
  }

  @Test
  void theChildClassPathListsItsJarsFirst() {
    String[] entries = NodeClassArchive.childClassPath().split(File.pathSeparator);
    boolean pastJars = false;
    for (String e : entries) {
      boolean jar = e.endsWith(".jar");
      assertTrue(!(pastJars && jar), "a jar after a directory: " + e);
      pastJars |= !jar;
    }
    assertEquals(
        System.getProperty("java.class.path").split(File.pathSeparator).length, entries.length);
  }
}
