package dev.baton.consensus.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * An opt-in CPU and allocation profile of one benchmark phase with the JDK's flight recorder (no
 * agent, no extra dependency): execution samples of every thread, summed by the method on top of
 * the stack (self time), by the first Baton frame below it (where a sample's work was asked for),
 * and by thread name; allocation samples weighted by bytes, by the first frame outside the JDK and
 * by class. Turned on with {@code -Dbench.profile=<file.jfr>}; the recording is kept for {@code jfr
 * print}.
 */
final class CpuProfile implements AutoCloseable {
  /** Rows printed per table. */
  static final int TOP = 25;

  /** How often each running thread is sampled. */
  static final Duration SAMPLE_PERIOD = Duration.ofMillis(10);

  private static final String SAMPLE_EVENT = "jdk.ExecutionSample";

  private static final String ALLOCATION_EVENT = "jdk.ObjectAllocationSample";

  /** Allocation samples per second the recorder may take (their weights add up to all bytes). */
  static final String ALLOCATION_THROTTLE = "1000/s";

  private static final double BYTES_PER_MB = 1 << 20;

  private final Path file;
  private final Recording recording;

  private CpuProfile(Path file) throws IOException, ParseException {
    this.file = file;
    this.recording = new Recording(Configuration.getConfiguration("default"));
    recording.enable(SAMPLE_EVENT).withPeriod(SAMPLE_PERIOD);
    recording.enable(ALLOCATION_EVENT).with("throttle", ALLOCATION_THROTTLE);
    recording.setDestination(file);
    recording.start();
  }

  /** A profile recording into the file named by {@code bench.profile}, or null if it is unset. */
  static CpuProfile startIfAsked() throws IOException, ParseException {
    String name = System.getProperty("bench.profile");
    return name == null || name.isBlank() ? null : new CpuProfile(Path.of(name));
  }

  /** Stops recording and summarizes the samples. */
  List<String> stopAndSummarize() throws IOException {
    recording.stop();
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> threads = new HashMap<>();
    Map<String, Integer> origin = new HashMap<>();
    Map<String, Integer> allocSite = new HashMap<>();
    Map<String, Integer> allocClass = new HashMap<>();
    long allocated = 0;
    int samples = 0;
    if (Files.exists(file)) {
      for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
        if (e.getEventType().getName().equals(ALLOCATION_EVENT)) {
          int kb = (int) Math.min(Integer.MAX_VALUE, e.getLong("weight") >> 10);
          allocated += e.getLong("weight");
          RecordedStackTrace stack = e.getStackTrace();
          allocSite.merge(
              stack == null || stack.getFrames().isEmpty()
                  ? "?"
                  : firstFrameOutsideJdk(stack.getFrames()),
              kb,
              Integer::sum);
          allocClass.merge(e.getClass("objectClass").getName(), kb, Integer::sum);
          continue;
        }
        if (!e.getEventType().getName().equals(SAMPLE_EVENT)) {
          continue;
        }
        RecordedStackTrace stack = e.getStackTrace();
        if (stack == null || stack.getFrames().isEmpty()) {
          continue;
        }
        samples++;
        List<RecordedFrame> frames = stack.getFrames();
        self.merge(frameName(frames.get(0)), 1, Integer::sum);
        origin.merge(firstOwnFrame(frames), 1, Integer::sum);
        var thread = e.getThread("sampledThread");
        String threadName = thread == null ? "?" : thread.getJavaName();
        threads.merge(threadGroup(threadName), 1, Integer::sum);
      }
    }
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "CPU profile: %d samples, kept in %s", samples, file));
    table(lines, "self (method on top of the stack)", self, samples);
    table(lines, "first Baton frame below (who asked for the work)", origin, samples);
    table(lines, "thread (digits folded)", threads, samples);
    double seconds =
        Math.max(
            1e-3,
            Duration.between(recording.getStartTime(), recording.getStopTime()).toMillis() / 1e3);
    lines.add(
        String.format(
            Locale.ROOT,
            "allocation: about %.0f MB in all (%.0f MB/s), sampled",
            allocated / BYTES_PER_MB,
            allocated / BYTES_PER_MB / seconds));
    int allocatedKb = (int) Math.min(Integer.MAX_VALUE, allocated >> 10);
    table(lines, "allocated by (first frame outside the JDK)", allocSite, allocatedKb);
    table(lines, "allocated as (class)", allocClass, allocatedKb);
    return lines;
  }

  @Override
  public void close() {
    recording.close();
  }

  /** The {@link #TOP} largest of {@code m}, each as its share of {@code total}, under a title. */
  static void table(
      List<String> lines, String title, Map<String, ? extends Number> m, double total) {
    lines.add("  " + title + ":");
    m.entrySet().stream()
        .sorted(
            Comparator.comparingDouble(
                    (Map.Entry<String, ? extends Number> e) -> e.getValue().doubleValue())
                .reversed())
        .limit(TOP)
        .forEach(
            e ->
                lines.add(
                    String.format(
                        Locale.ROOT,
                        "    %5.1f %%  %s",
                        100.0 * e.getValue().doubleValue() / Math.max(1, total),
                        e.getKey())));
  }

  private static String frameName(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  /** The topmost frame of Baton's own code, or the bottom frame if there is none. */
  private static String firstOwnFrame(List<RecordedFrame> frames) {
    for (RecordedFrame f : frames) {
      if (f.getMethod().getType().getName().startsWith("dev.baton.")) {
        return frameName(f);
      }
    }
    return "(no Baton frame) " + frameName(frames.get(frames.size() - 1));
  }

  /** The topmost frame that is not the JDK's own: the code whose call allocated. */
  private static String firstFrameOutsideJdk(List<RecordedFrame> frames) {
    for (RecordedFrame f : frames) {
      String type = f.getMethod().getType().getName();
      if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
        return frameName(f);
      }
    }
    return "(JDK only) " + frameName(frames.get(0));
  }

  private static String threadGroup(String name) {
    return name.replaceAll("\\d+", "#");
  }
}
