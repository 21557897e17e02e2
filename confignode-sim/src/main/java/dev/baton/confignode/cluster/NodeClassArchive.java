package dev.baton.confignode.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A class data sharing archive (AppCDS) of the classes a ConfigNode loads until it serves in a
 * secured cluster and talks Raft with its peers, for the child JVMs of this class path: a child
 * maps them from the archive instead of reading, parsing and verifying each from its jar. A node's
 * start until its admin API answered took 1.7-4.3 s with it against 4.1-8.3 s without (one node,
 * runs alternating, machine loaded 21-25 deep); five nodes started at once (a whole cluster
 * restarted) spend most of their start loading classes.
 *
 * <p>Built once per class path and JDK, in the system temp directory: a training cluster ({@link
 * ArchiveTraining}) runs until it serves and is stopped, the JDK writes the classes each node
 * loaded, and {@code java -Xshare:dump} writes the archive of them all ({@link ClassLists}). An
 * archive covers the jars of the class path only (the JDK archives no class from a directory): the
 * children get the jars first, in their order, then the directories. If anything fails the children
 * start without an archive, as before; the JDK also ignores an archive that does not fit the class
 * path (a jar rebuilt since).
 */
public final class NodeClassArchive {
  private static final Logger LOG = LoggerFactory.getLogger(NodeClassArchive.class);

  /** Set to {@code false} to start child JVMs without an archive. */
  static final String ENABLED_PROPERTY = "baton.childJvm.classArchive";

  /** The directory, under the system temp directory, that holds the archives. */
  static final String DIR = "baton-class-archives";

  static final String ARCHIVE_SUFFIX = ".jsa";

  /** How long the archive's dump may take. */
  static final Duration EXIT_WAIT = Duration.ofSeconds(60);

  /**
   * How long an archive of another class path (a jar since rebuilt) is kept after it was built. A
   * child that finds its archive gone starts without one.
   */
  static final Duration STALE_AFTER = Duration.ofHours(1);

  private static Optional<Path> built;

  private NodeClassArchive() {}

  /**
   * The JVM flags that make a child use the archive of this JVM's class path, building it first if
   * none exists yet; none if disabled or the archive cannot be built.
   */
  public static synchronized List<String> jvmFlags() {
    if (!Boolean.parseBoolean(System.getProperty(ENABLED_PROPERTY, "true"))) {
      return List.of();
    }
    if (built == null) {
      built = archive(jars(classPath()));
    }
    return built.map(a -> List.of("-XX:SharedArchiveFile=" + a)).orElse(List.of());
  }

  /** This JVM's class path as a child gets it: its jars first, in their order, then the rest. */
  public static String childClassPath() {
    List<String> entries = classPath();
    List<String> ordered = new ArrayList<>(jars(entries));
    for (String e : entries) {
      if (!ordered.contains(e)) {
        ordered.add(e);
      }
    }
    return String.join(File.pathSeparator, ordered);
  }

  private static List<String> classPath() {
    List<String> entries = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!e.isEmpty()) {
        entries.add(e);
      }
    }
    return entries;
  }

  /** The entries of {@code classPath} that are jar files. */
  static List<String> jars(List<String> classPath) {
    List<String> jars = new ArrayList<>();
    for (String e : classPath) {
      if (e.endsWith(".jar") && Files.isRegularFile(Path.of(e))) {
        jars.add(e);
      }
    }
    return jars;
  }

  /** The archive of {@code jars}, built if absent; empty if none can be. */
  private static Optional<Path> archive(List<String> jars) {
    if (jars.isEmpty()) {
      return Optional.empty();
    }
    try {
      Path dir = Path.of(System.getProperty("java.io.tmpdir"), DIR);
      Files.createDirectories(dir);
      Path archive = dir.resolve(key(jars) + ARCHIVE_SUFFIX);
      if (Files.isRegularFile(archive)) {
        return Optional.of(archive);
      }
      long start = System.nanoTime();
      Path work = Files.createTempDirectory(dir, "build");
      try {
        Path classes = work.resolve("classes.lst");
        train(work, classes);
        Path dumped = work.resolve("archive.jsa");
        dump(jars, classes, dumped, work.resolve("dump.log"));
        Files.move(dumped, archive, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        ProcessCluster.deleteTree(work);
      }
      removeStale(dir, archive);
      LOG.info(
          "class data archive for the child JVMs built in {} ms: {}",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
          archive);
      return Optional.of(archive);
    } catch (IOException | RuntimeException e) {
      LOG.warn("child JVMs start without a class data archive: {}", e.toString());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** Runs the training cluster, and leaves the classes its nodes loaded in one list. */
  private static void train(Path work, Path classes) throws IOException, InterruptedException {
    ClassLists.merge(ArchiveTraining.run(work.resolve("training")), classes);
  }

  private static void dump(List<String> jars, Path classes, Path archive, Path log)
      throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                java(),
                "-Xshare:dump",
                "-XX:SharedClassListFile=" + classes,
                "-XX:SharedArchiveFile=" + archive,
                "-cp",
                String.join(File.pathSeparator, jars))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      throw new IOException("the archive dump did not end within " + EXIT_WAIT);
    }
    if (p.exitValue() != 0 || !Files.isRegularFile(archive)) {
      throw new IOException("the archive dump failed (exit " + p.exitValue() + ")");
    }
  }

  /**
   * Deletes the archives in {@code dir} other than {@code keep} built over {@link #STALE_AFTER}
   * ago.
   */
  private static void removeStale(Path dir, Path keep) throws IOException {
    long before = System.currentTimeMillis() - STALE_AFTER.toMillis();
    try (Stream<Path> archives = Files.list(dir)) {
      for (Path a : archives.filter(a -> a.toString().endsWith(ARCHIVE_SUFFIX)).toList()) {
        if (!a.equals(keep) && Files.getLastModifiedTime(a).toMillis() < before) {
          Files.deleteIfExists(a);
        }
      }
    }
  }

  /** Names the archive of {@code jars} under this JDK: each jar's path, size and time. */
  static String key(List<String> jars) throws IOException {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(System.getProperty("java.home").getBytes(StandardCharsets.UTF_8));
      d.update(Runtime.version().toString().getBytes(StandardCharsets.UTF_8));
      for (String jar : jars) {
        Path p = Path.of(jar);
        String stamp =
            jar + "|" + Files.size(p) + "|" + Files.getLastModifiedTime(p).toMillis() + "\n";
        d.update(stamp.getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing", e);
    }
  }

  /** The java launcher of this JVM. */
  public static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
