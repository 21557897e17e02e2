package dev.baton.confignode.metrics;

import dev.baton.consensus.NodeRole;
import dev.baton.consensus.ProcedureNode;
import dev.baton.consensus.StateMachineMetrics;
import dev.baton.procedure.ExecutorCensus;
import dev.baton.procedure.WaitCategory;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The gauges and counters read from a {@link ProcedureNode} when scraped: Raft (role, term, commit
 * and applied index, leader changes), the state machine's applied and rejected entries, and the
 * running executor (workers, queue, live procedures by state, waiting ones by {@link WaitCategory},
 * the oldest live one of each type, the last recovery). Executor gauges are absent on a node
 * without a running executor.
 */
final class NodeGauges {
  static final String ROLE = "role";
  static final String STATE = "state";
  static final String REASON = "reason";
  static final String TYPE = ExecutorRecorder.TYPE;

  private static final double MILLIS_PER_SECOND = 1e3;

  private final ProcedureNode<?> node;
  private final Supplier<NodeReading> reading;
  private final PrometheusRegistry registry;

  /**
   * Registers the gauges of {@code node} in {@code registry}; {@code reading} is the reading of the
   * scrape in progress.
   */
  NodeGauges(ProcedureNode<?> node, Supplier<NodeReading> reading, PrometheusRegistry registry) {
    this.node = node;
    this.reading = reading;
    this.registry = registry;
    raft();
    stateMachine();
    executor();
  }

  private void raft() {
    gauge(
        "baton_raft_role",
        "1 for this node's role, 0 for the others",
        cb -> {
          NodeRole now = reading.get().role();
          for (NodeRole r : NodeRole.values()) {
            cb.call(r == now ? 1 : 0, lower(r));
          }
        },
        ROLE);
    value("baton_raft_leader", "1 if this node is the Raft leader", n -> n.isLeader() ? 1 : 0);
    value("baton_raft_term", "the Raft term this node is in", ProcedureNode::term);
    value(
        "baton_raft_commit_index",
        "index of the last Raft log entry this node knows to be committed",
        ProcedureNode::commitIndex);
    value(
        "baton_raft_applied_index",
        "index of the last Raft log entry this node applied",
        n -> n.metrics().appliedIndex());
    counter(
        "baton_raft_leader_changes_total",
        "leader changes this node saw",
        ProcedureNode::leaderChanges);
    counter(
        "baton_follower_reads_total",
        "linearizable reads this node answered as a follower by the leader's read index",
        ProcedureNode::followerReadCount);
    counter(
        "baton_follower_read_fallbacks_total",
        "follower reads the leader's read index could not answer, read another way",
        ProcedureNode::followerReadFallbackCount);
    counter(
        "baton_follower_reads_behind_total",
        "follower reads whose node had not applied the leader's read index when it came, also"
            + " read through Ratis",
        ProcedureNode::followerReadBehindCount);
    counter(
        "baton_read_index_commit_sends_total",
        "read indexes this node gave as leader to a follower not yet told they were committed,"
            + " with the commit index sent to it at once",
        ProcedureNode::readIndexCommitSendCount);
  }

  private void stateMachine() {
    StateMachineMetrics sm = node.metrics();
    counter(
        "baton_applied_store_batches_total",
        "store batches applied by this node",
        n -> sm.appliedBatchCount());
    counter(
        "baton_applied_write_entries_total",
        "log entries that carried store batches",
        n -> sm.appliedWriteEntryCount());
    counter(
        "baton_applied_submit_entries_total",
        "log entries that carried submissions alone",
        n -> sm.appliedSubmitEntryCount());
    counter(
        "baton_carried_submissions_total",
        "submissions applied from store-write entries (the leader's own, while its executor runs)",
        n -> sm.carriedSubmissionCount());
    counter(
        "baton_rejected_stale_writes_total",
        "store batches, metadata writes and id reservations rejected for a stale term or epoch",
        ProcedureNode::rejectedWriteCount);
  }

  private void executor() {
    gauge(
        "baton_executor_running",
        "1 if this node runs the executor",
        cb -> cb.call(reading.get().executor().isPresent() ? 1 : 0));
    figure("baton_executor_workers", "worker threads of the executor", f -> f.workers());
    figure(
        "baton_executor_running_steps",
        "procedures whose step a worker runs now",
        f -> f.runningSteps());
    figure(
        "baton_executor_queued_procedures",
        "procedures ready to run, waiting for a worker",
        f -> f.queued());
    counts(
        "baton_procedures_live",
        "live procedures by state (FAILED ones are rolling back)",
        STATE,
        ExecutorCensus::byState);
    counts(
        "baton_procedures_blocked",
        "live procedures that wait, by what they wait for",
        REASON,
        ExecutorCensus::blocked);
    GaugeWithCallback.builder()
        .name("baton_procedure_oldest_live_age_seconds")
        .help("age of the oldest live procedure of each type")
        .unit(Unit.SECONDS)
        .labelNames(TYPE)
        .callback(
            cb ->
                census()
                    .ifPresent(
                        c ->
                            c.oldestSubmittedMillis()
                                .forEach(
                                    (type, at) ->
                                        cb.call(
                                            Math.max(0, c.takenAtMillis() - at) / MILLIS_PER_SECOND,
                                            type))))
        .register(registry);
    GaugeWithCallback.builder()
        .name("baton_executor_last_recovery_seconds")
        .help("how long this node's last executor recovery took, from its start to running")
        .unit(Unit.SECONDS)
        .callback(
            cb ->
                reading
                    .get()
                    .lastRecovery()
                    .ifPresent(r -> cb.call(r.rebuildTime().toMillis() / MILLIS_PER_SECOND)))
        .register(registry);
  }

  private java.util.Optional<ExecutorCensus> census() {
    return reading.get().executor().map(NodeReading.ExecutorFigures::census);
  }

  /** A gauge of the census' counts by an enum, one sample per constant; absent without one. */
  private void counts(
      String name,
      String help,
      String label,
      Function<ExecutorCensus, Map<? extends Enum<?>, Integer>> counts) {
    gauge(
        name,
        help,
        cb -> census().ifPresent(c -> counts.apply(c).forEach((k, n) -> cb.call(n, lower(k)))),
        label);
  }

  private static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  private void gauge(
      String name, String help, Consumer<GaugeWithCallback.Callback> callback, String... labels) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames(labels)
        .callback(callback)
        .register(registry);
  }

  /** A gauge of the node itself, read when scraped. */
  private void value(String name, String help, ToDoubleFunction<ProcedureNode<?>> read) {
    gauge(name, help, cb -> cb.call(read.applyAsDouble(node)));
  }

  /** A gauge of the running executor; absent without one. */
  private void figure(
      String name, String help, ToDoubleFunction<NodeReading.ExecutorFigures> read) {
    gauge(
        name, help, cb -> reading.get().executor().ifPresent(f -> cb.call(read.applyAsDouble(f))));
  }

  private void counter(String name, String help, ToDoubleFunction<ProcedureNode<?>> read) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .callback(cb -> cb.call(read.applyAsDouble(node)))
        .register(registry);
  }
}
