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
 * whose jars come first. The archive holds the classes a member loads when its peers reach it over
 * mutual TLS and those of its admin API's requests, not only those of its start.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class NodeClassArchiveTest {
  static final String FLAG = "-XX:SharedArchiveFile=";

  /**
   * Classes a member loads only once it talks Raft with its peers over mutual TLS: the TLS handler,
   * the trust manager that checks a peer's certificate, both ends of the appends.
   */
  static final List<String> PEER_CLASSES =
      List.of(
          "org.apache.ratis.thirdparty.io.netty.handler.ssl.SslHandler",
          "dev.baton.consensus.MemberTrustManager",
          "org.apache.ratis.grpc.server.GrpcLogAppender",
          "org.apache.ratis.grpc.server.GrpcServerProtocolService");

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

  /**
   * Classes a node loads only once its admin API answers a request over HTTPS (what a launcher
   * waiting for a running leader, or an operator, sends first).
   */
  static final List<String> REQUEST_CLASSES =
      List.of(
          "org.eclipse.jetty.io.ssl.SslConnection$SslEndPoint",
          "org.eclipse.jetty.server.internal.HttpConnection$SendCallback");

  @Test
  void theArchiveHoldsTheClassesOfRaftOverMutualTls() throws Exception {
    String dictionary = dictionary();
    for (String c : PEER_CLASSES) {
      assertTrue(dictionary.contains(" " + c + " "), c + " is not in the archive");
    }
  }

  @Test
  void theArchiveHoldsTheClassesOfAnAdminApiRequest() throws Exception {
    String dictionary = dictionary();
    for (String c : REQUEST_CLASSES) {
      assertTrue(dictionary.contains(" " + c + " "), c + " is not in the archive");
    }
  }

  /** The archive's list of the classes it holds, one a line. */
  private static String dictionary() throws Exception {
    List<String> flags = NodeClassArchive.jvmFlags();
    assertEquals(1, flags.size(), "flags " + flags);
    Process print =
        new ProcessBuilder(
                NodeClassArchive.java(),
                flags.get(0),
                "-XX:+PrintSharedArchiveAndExit",
                "-XX:+PrintSharedDictionary",
                "-cp",
                NodeClassArchive.childClassPath())
            .redirectErrorStream(true)
            .start();
    String dictionary = new String(print.getInputStream().readAllBytes());
    assertTrue(print.waitFor(CHECK_SECONDS, TimeUnit.SECONDS));
    return dictionary;
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
