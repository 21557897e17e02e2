package dev.baton.confignode.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * CPU time each process of a run used over its measured phase, per procedure, in milliseconds: the
 * bench client (this JVM), the leader and each follower, and their sum. On a shared machine this
 * moves less with other load than the rates do, and it says what a procedure costs: the cores of
 * the machine divided by the sum bounds the procedures per second. A figure the system does not
 * report is 0.
 *
 * @param bench the bench client's (its HTTP client, JSON, TLS)
 * @param leader the leader's
 * @param followers each follower's
 */
public record CpuPerProcedure(double bench, double leader, List<Double> followers) {
  private static final double NANOS_PER_MILLI = 1e6;

  public double total() {
    return bench + leader + followers.stream().mapToDouble(Double::doubleValue).sum();
  }

  /** For the JSON line: milliseconds rounded to a hundredth. */
  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("bench", hundredths(bench));
    m.put("leader", hundredths(leader));
    m.put("followers", followers.stream().map(CpuPerProcedure::hundredths).toList());
    m.put("total", hundredths(total()));
    return m;
  }

  static double hundredths(double v) {
    return Math.round(v * 100) / 100.0;
  }

  /** CPU times of the bench's processes at one instant, as the system reports them. */
  record Sample(
      Optional<Duration> bench, Optional<Duration> leader, List<Optional<Duration>> followers) {
    /** Now, of this JVM and of the processes {@code leaderPid} and {@code followerPids}. */
    static Sample now(long leaderPid, List<Long> followerPids) {
      return new Sample(
          cpu(ProcessHandle.current()),
          ProcessHandle.of(leaderPid).flatMap(Sample::cpu),
          followerPids.stream().map(p -> ProcessHandle.of(p).flatMap(Sample::cpu)).toList());
    }

    private static Optional<Duration> cpu(ProcessHandle p) {
      return p.info().totalCpuDuration();
    }

    /** From {@code start} to this sample, per procedure of {@code procedures}. */
    CpuPerProcedure since(Sample start, int procedures) {
      List<Double> f = new ArrayList<>();
      for (int i = 0; i < followers.size(); i++) {
        f.add(perProcedure(start.followers.get(i), followers.get(i), procedures));
      }
      return new CpuPerProcedure(
          perProcedure(start.bench, bench, procedures),
          perProcedure(start.leader, leader, procedures),
          f);
    }

    private static double perProcedure(
        Optional<Duration> from, Optional<Duration> to, int procedures) {
      if (from.isEmpty() || to.isEmpty() || procedures == 0) {
        return 0;
      }
      return to.get().minus(from.get()).toNanos() / NANOS_PER_MILLI / procedures;
    }
  }
}
