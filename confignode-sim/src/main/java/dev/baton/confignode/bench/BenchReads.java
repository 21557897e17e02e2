package dev.baton.confignode.bench;

import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ProcessCluster;
import java.io.IOException;
import java.time.Duration;

/**
 * The bench's reads: one procedure read by {@code GET /api/procedures/ID} from the leader and from
 * a follower, in turn, through their admin APIs; and their warm-up, which reads until the read
 * times stop falling.
 *
 * <p>A follower's read path (its admin API, the read index call between members) runs nowhere else,
 * and the leader's plain GET little, so only reads warm them. How many it takes depends on the
 * path: a follower's read p50 fell over the first 3,000 pairs through Ratis' follower read index,
 * but over about 12,000 by Baton's read index call (its gRPC unary call, stream and header code is
 * used by nothing else). So the warm-up reads a minimum that covers the known paths, then goes on
 * while a round's p50 still falls clearly (a path slower to warm, or a slower machine).
 */
final class BenchReads {
  /** Reads of each kind per round; also the most a measured phase reads. */
  static final int ROUND = 500;

  /** A round's p50 below the best so far by more than this share counts as still falling. */
  static final double FALL = 0.05;

  /** Rounds in a row whose p50 did not fall after which the read paths count as warm. */
  static final int STEADY_ROUNDS = 3;

  /** Warm-up reads of each kind at most, whether or not the p50 still falls. */
  static final int MAX_WARMUP_READS = 40_000;

  /** The p50 etc. of each kind of read. */
  record Times(Percentiles leader, Percentiles follower) {}

  private final ProcessCluster cluster;

  BenchReads(ProcessCluster cluster) {
    this.cluster = cluster;
  }

  /**
   * Reads at least {@code count} pairs and for at least {@code time}, then on while the leader's or
   * the follower's p50 still falls ({@link #FALL}, {@link #STEADY_ROUNDS}), up to {@link
   * #MAX_WARMUP_READS}, in rounds of at most {@link #ROUND}; returns the pairs read. {@code steady}
   * false reads only the count and the time (a quick run).
   */
  int warm(String leader, long procId, int count, Duration time, boolean steady)
      throws IOException, InterruptedException {
    long end = System.nanoTime() + time.toNanos();
    int done = 0;
    Steadiness times = new Steadiness();
    while (done < count
        || System.nanoTime() < end
        || (steady && !times.steady() && done < MAX_WARMUP_READS)) {
      int round = done < count ? Math.min(ROUND, count - done) : ROUND;
      Times t = measure(leader, procId, round);
      times.add(t.leader().p50(), t.follower().p50());
      done += round;
    }
    return done;
  }

  /**
   * Whether rounds of reads still get faster: steady once {@link #STEADY_ROUNDS} rounds in a row
   * brought neither p50 more than {@link #FALL} below its best so far.
   */
  static final class Steadiness {
    private double bestLeader = Double.MAX_VALUE;
    private double bestFollower = Double.MAX_VALUE;
    private int roundsWithoutFall;

    /** One more round's p50s. */
    void add(double leaderP50, double followerP50) {
      boolean fell = leaderP50 < bestLeader * (1 - FALL) || followerP50 < bestFollower * (1 - FALL);
      roundsWithoutFall = fell ? 0 : roundsWithoutFall + 1;
      bestLeader = Math.min(bestLeader, leaderP50);
      bestFollower = Math.min(bestFollower, followerP50);
    }

    boolean steady() {
      return roundsWithoutFall >= STEADY_ROUNDS;
    }
  }

  /** {@code count} reads of {@code procId} from the leader and as many from a follower, in turn. */
  Times measure(String leader, long procId, int count) throws IOException, InterruptedException {
    String follower =
        cluster.nodeIds().stream()
            .filter(id -> !id.equals(leader) && cluster.isServing(id))
            .findFirst()
            .orElse(leader);
    NodeApiClient leaderApi = cluster.client(cluster.http(leader));
    NodeApiClient followerApi = cluster.client(cluster.http(follower));
    String path = "/api/procedures/" + procId;
    long[] fromLeader = new long[count];
    long[] fromFollower = new long[count];
    for (int i = 0; i < count; i++) {
      long t0 = System.nanoTime();
      leaderApi.get(path);
      long t1 = System.nanoTime();
      followerApi.get(path);
      fromLeader[i] = t1 - t0;
      fromFollower[i] = System.nanoTime() - t1;
    }
    return new Times(Percentiles.ofNanos(fromLeader), Percentiles.ofNanos(fromFollower));
  }
}
