package dev.baton.confignode.cli;

import dev.baton.confignode.bench.Bench;
import dev.baton.confignode.bench.BenchResult;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;

/**
 * {@code confignode-sim bench [--nodes N] [--procedures N] [--steps K] [--clients W] [--rate R]
 * [--max-failures N] [--keep-dir]}: starts a local cluster of ConfigNode processes, runs {@link
 * Bench} (procedures, the raw Raft baseline, reads), prints a table and a JSON line, and removes
 * its processes and directory. Failed operations are counted and the run goes on: exit 0 if none
 * failed, 1 if some did (the report says which), 4 if the run stopped because none succeeded any
 * more or a phase had more than {@code --max-failures}.
 */
@Command(
    name = "bench",
    description = {
      "Measures throughput and latency on a local cluster.",
      "Starts ConfigNode processes, has W clients each submit Noop procedures of K steps and wait"
          + " for them (or starts R per second with --rate), N in all; then commits N empty Raft"
          + " entries from W clients (the raw baseline) and reads a procedure from the leader and"
          + " a follower. Prints a table and a JSON line, with each figure's ratio to its"
          + " baseline.",
      "An operation that fails (an error, or a procedure not ending in SUCCESS) is counted per"
          + " phase with its most common errors, and the run goes on; rates and latencies count"
          + " the successful operations. The run stops when no operation of a phase succeeded"
          + " for "
          + ConfigNodeWaits.BENCH_ALL_FAILING_SECONDS
          + " s, or when a phase had more than --max-failures."
    },
    exitCodeList = {
      "0:every operation succeeded",
      "1:some operations failed (counted in the report: failedOperations, failures)",
      "2:bad flags",
      "4:the benchmark could not run, or stopped: no operation succeeded for "
          + ConfigNodeWaits.BENCH_ALL_FAILING_SECONDS
          + " s, or more than --max-failures failed in a phase"
    })
final class BenchCommand extends CliCommand {
  static final int EXIT_SOME_FAILED = 1;
  static final int MIN_NODES = 1;
  static final int MAX_NODES = 7;
  static final int MAX_PROCEDURES = 1_000_000;
  static final int MAX_STEPS = 1_000;
  static final int MAX_CLIENTS = 256;
  static final int MAX_RATE = 100_000;
  static final int MAX_WARMUP_SECONDS = 3_600;

  @Bounds(min = MIN_NODES, max = MAX_NODES)
  @Option(names = "--nodes", paramLabel = "N", description = "ConfigNode processes")
  int nodes = Bench.Settings.DEFAULT_NODES;

  @Bounds(min = 1, max = MAX_PROCEDURES)
  @Option(names = "--procedures", paramLabel = "N", description = "procedures measured")
  int procedures = Bench.Settings.DEFAULT_PROCEDURES;

  @Bounds(min = 1, max = MAX_STEPS)
  @Option(names = "--steps", paramLabel = "K", description = "steps of each Noop")
  int steps = Bench.Settings.DEFAULT_STEPS;

  @Bounds(min = 1, max = MAX_CLIENTS)
  @Option(
      names = {"--clients", "--workers"},
      paramLabel = "W",
      description = "concurrent closed-loop clients (and of the raw baseline)")
  int clients = Bench.Settings.DEFAULT_CLIENTS;

  @Bounds(min = 0, max = MAX_RATE)
  @Option(
      names = "--rate",
      paramLabel = "R",
      description =
          "procedures started per second whatever their answers (open loop); 0: closed loop")
  int rate;

  @Bounds(min = 0, max = MAX_WARMUP_SECONDS)
  @Option(
      names = "--warmup-seconds",
      paramLabel = "S",
      description = "how long procedures run before the measured ones (the JIT compiles meanwhile)")
  int warmupSeconds = (int) Bench.Settings.DEFAULT_WARMUP.toSeconds();

  @Bounds(min = 0, max = Bench.Settings.UNLIMITED_FAILURES)
  @Option(
      names = "--max-failures",
      paramLabel = "N",
      showDefaultValue = Visibility.NEVER,
      description =
          "failed operations a phase may have; one more stops the run (0: stop at the first)."
              + " Default: no limit, the run stops only when none succeeded for "
              + ConfigNodeWaits.BENCH_ALL_FAILING_SECONDS
              + " s")
  int maxFailures = Bench.Settings.UNLIMITED_FAILURES;

  @Option(
      names = "--keep-dir",
      arity = "0..1",
      paramLabel = "true|false",
      description = "keep logs and data afterwards")
  boolean keepDir;

  @Option(
      names = {"--insecure", "--no-tokens"},
      arity = "0",
      description =
          "start the ConfigNodes without tokens and with Raft in plain text (loopback), to measure"
              + " what security costs")
  boolean noTokens;

  @Option(
      names = "--submit-then-wait",
      arity = "0",
      description =
          "two requests per procedure, the submission then a long poll (measures the submission's"
              + " answer); default: one, POST /api/procedures?waitFor=finished")
  boolean submitThenWait;

  @Override
  public Integer call() {
    Bench.Settings settings =
        new Bench.Settings(
            nodes,
            procedures,
            steps,
            clients,
            rate,
            Duration.ofSeconds(warmupSeconds),
            keepDir,
            !noTokens,
            submitThenWait,
            maxFailures);
    return LocalJob.run(
        spec.name(),
        () -> new Bench(settings, out()),
        bench -> {
          BenchResult result = bench.run();
          out().println();
          out().print(result.table());
          out().println(result.jsonLine());
          if (result.failedOperations() > 0) {
            err().println(spec.name() + ": " + result.failedOperations() + " operations failed");
            return EXIT_SOME_FAILED;
          }
          return 0;
        },
        err());
  }
}
