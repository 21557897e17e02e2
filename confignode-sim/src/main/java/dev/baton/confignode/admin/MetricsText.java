package dev.baton.confignode.admin;

import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.ProcedureExecutor;

/** {@code GET /metrics}: this node's gauges and counters in the Prometheus text format. */
final class MetricsText {
  static final String PATH = "/metrics";

  static final String CONTENT_TYPE = "text/plain; version=0.0.4";

  private MetricsText() {}

  static String of(ProcedureNode<ConfigNodeEnv> node) {
    StringBuilder out = new StringBuilder();
    gauge(out, "baton_leader", "1 if this node leads", node.isLeader() ? 1 : 0);
    gauge(out, "baton_term", "current Raft term", node.term());
    gauge(
        out,
        "baton_executor_running",
        "1 if this node runs the executor",
        node.executor().isPresent() ? 1 : 0);
    gauge(
        out,
        "baton_live_procedures",
        "live procedures in the executor",
        node.executor().map(ProcedureExecutor::liveCount).orElse(0));
    gauge(
        out,
        "baton_running_procedures",
        "procedures whose step a worker runs now",
        node.executor().map(ProcedureExecutor::runningCount).orElse(0));
    gauge(
        out,
        "baton_queued_procedures",
        "procedures ready to run, waiting for a worker",
        node.executor().map(ProcedureExecutor::queuedCount).orElse(0));
    counter(
        out,
        "baton_applied_store_batches_total",
        "store batches applied by this node",
        node.stateMachine().appliedBatchCount());
    counter(
        out,
        "baton_applied_write_entries_total",
        "log entries that carried store batches",
        node.stateMachine().appliedWriteEntryCount());
    counter(
        out,
        "baton_applied_submit_entries_total",
        "log entries that carried submissions alone",
        node.stateMachine().appliedSubmitEntryCount());
    counter(
        out,
        "baton_carried_submissions_total",
        "submissions applied from store-write entries (the leader's own, while its executor runs)",
        node.stateMachine().carriedSubmissionCount());
    gauge(
        out,
        "baton_applied_index",
        "index of the last Raft log entry applied by this node",
        node.stateMachine().appliedIndex());
    counter(
        out,
        "baton_rejected_stale_writes_total",
        "writes rejected for a stale term",
        node.rejectedWriteCount());
    return out.toString();
  }

  private static void gauge(StringBuilder out, String name, String help, long value) {
    sample(out, name, help, "gauge", value);
  }

  /** A value that only grows; Prometheus names these {@code *_total}. */
  private static void counter(StringBuilder out, String name, String help, long value) {
    sample(out, name, help, "counter", value);
  }

  private static void sample(StringBuilder out, String name, String help, String type, long value) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    out.append(name).append(' ').append(value).append('\n');
  }
}
