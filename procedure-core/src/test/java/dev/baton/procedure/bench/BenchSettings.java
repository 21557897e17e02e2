package dev.baton.procedure.bench;

import java.time.Duration;

/**
 * The benchmark's sizes, each a system property with its default (defaults chosen to keep a whole
 * run to a few minutes on a small machine).
 *
 * @param warmup how long the in-memory workload runs before the in-memory measurement; the JIT
 *     compiles the executor's hot paths meanwhile (on two cores it needs time)
 * @param fileWarmup how long the file-store workload runs before the file-store measurement
 * @param procedures procedures of the in-memory measurement
 * @param fileProcedures procedures of the file-store measurement
 * @param live live procedures a recovery rebuilds
 * @param recoveryRounds recoveries per store; the first is cold, the median of the others is
 *     reported
 * @param inFlight procedures submitted but not yet finished, at most
 * @param fileRecovery whether to measure recovery from a file store too
 */
record BenchSettings(
    Duration warmup,
    Duration fileWarmup,
    long procedures,
    long fileProcedures,
    int live,
    int recoveryRounds,
    int inFlight,
    boolean fileRecovery) {

  static final String WARMUP_SECONDS = "bench.warmupSeconds";
  static final String FILE_WARMUP_SECONDS = "bench.fileWarmupSeconds";
  static final String PROCEDURES = "bench.procedures";
  static final String FILE_PROCEDURES = "bench.fileProcedures";
  static final String LIVE = "bench.live";
  static final String RECOVERY_ROUNDS = "bench.recoveryRounds";
  static final String IN_FLIGHT = "bench.inFlight";
  static final String FILE_RECOVERY = "bench.fileRecovery";

  static final int DEFAULT_WARMUP_SECONDS = 20;
  static final int DEFAULT_FILE_WARMUP_SECONDS = 5;
  static final long DEFAULT_PROCEDURES = 1_000_000;
  static final long DEFAULT_FILE_PROCEDURES = 6_000;
  static final int DEFAULT_LIVE = 100_000;
  static final int DEFAULT_RECOVERY_ROUNDS = 4;
  static final int DEFAULT_IN_FLIGHT = 1_000;
  static final boolean DEFAULT_FILE_RECOVERY = true;

  BenchSettings {
    requireAtLeast(WARMUP_SECONDS, warmup.toSeconds(), 0);
    requireAtLeast(FILE_WARMUP_SECONDS, fileWarmup.toSeconds(), 0);
    requireAtLeast(PROCEDURES, procedures, 1);
    requireAtLeast(FILE_PROCEDURES, fileProcedures, 1);
    requireAtLeast(LIVE, live, 1);
    requireAtLeast(RECOVERY_ROUNDS, recoveryRounds, 1);
    requireAtLeast(IN_FLIGHT, inFlight, 1);
  }

  static BenchSettings fromSystemProperties() {
    return new BenchSettings(
        Duration.ofSeconds(Long.getLong(WARMUP_SECONDS, DEFAULT_WARMUP_SECONDS)),
        Duration.ofSeconds(Long.getLong(FILE_WARMUP_SECONDS, DEFAULT_FILE_WARMUP_SECONDS)),
        Long.getLong(PROCEDURES, DEFAULT_PROCEDURES),
        Long.getLong(FILE_PROCEDURES, DEFAULT_FILE_PROCEDURES),
        Integer.getInteger(LIVE, DEFAULT_LIVE),
        Integer.getInteger(RECOVERY_ROUNDS, DEFAULT_RECOVERY_ROUNDS),
        Integer.getInteger(IN_FLIGHT, DEFAULT_IN_FLIGHT),
        Boolean.parseBoolean(
            System.getProperty(FILE_RECOVERY, String.valueOf(DEFAULT_FILE_RECOVERY))));
  }

  private static void requireAtLeast(String property, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(
          "system property " + property + " must be >= " + min + ", got " + value);
    }
  }
}
