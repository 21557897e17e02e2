package dev.baton.procedure.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * What the JVM spent: heap in use after full collections, time in garbage collection, and CPU time
 * of this process (to tell a slow run from a run that did not get the cores).
 */
final class JvmMeter {
  /** Collections in a row; the used heap settles after a few. */
  private static final int COLLECTIONS = 3;

  /** Pause between collections so reference processing can finish. */
  private static final long PAUSE_MILLIS = 50;

  /** The manageable HotSpot flag that lets a collection shrink the committed heap. */
  private static final String MAX_HEAP_FREE_RATIO = "MaxHeapFreeRatio";

  /** The ratio at which the heap never shrinks. */
  private static final String NEVER_SHRINK = "100";

  private JvmMeter() {}

  /**
   * Stops full collections from shrinking the committed heap (MaxHeapFreeRatio=100, a manageable
   * flag, set at run time). Without it, the collections that measure heap hand memory back to the
   * OS and the next timed phase pays to commit and first-touch it again. Returns a description of
   * what was done, for the report.
   */
  static String keepHeapCommitted() {
    try {
      com.sun.management.HotSpotDiagnosticMXBean hotspot =
          ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
      hotspot.setVMOption(MAX_HEAP_FREE_RATIO, NEVER_SHRINK);
      return MAX_HEAP_FREE_RATIO + "=" + NEVER_SHRINK + " (GCs do not shrink the heap)";
    } catch (RuntimeException e) {
      return "heap may shrink after GC (" + MAX_HEAP_FREE_RATIO + " not settable: " + e + ")";
    }
  }

  /** The heap in use after {@link #COLLECTIONS} full collections, in bytes. */
  static long usedHeapAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < COLLECTIONS; i++) {
      memory.gc();
      Thread.sleep(PAUSE_MILLIS);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  /** Milliseconds spent in garbage collection so far, all collectors. */
  static long gcMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }

  /** CPU time of this process so far, in nanoseconds; -1 if the JVM cannot tell. */
  static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** CPU time of the calling thread so far, in nanoseconds. */
  static long threadCpuNanos() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  /** The share of all cores this process used over {@code wallNanos}, in percent; -1 if unknown. */
  static double cpuPercent(long cpuNanos, long wallNanos) {
    if (cpuNanos < 0 || wallNanos <= 0) {
      return -1;
    }
    return 100.0 * cpuNanos / wallNanos / Runtime.getRuntime().availableProcessors();
  }
}
