package dev.baton.confignode.metrics;

import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.ProcedureMetrics;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.List;

/**
 * A ConfigNode's metrics: one registry per node (several nodes may share a JVM in tests), the
 * executor's events ({@link #executorMetrics()}, given to every leader executor the node builds),
 * the node's gauges once {@link #watch watching} it, and operator actions. {@link #scrape()} writes
 * them in the Prometheus text format.
 *
 * <p>Names follow Prometheus' conventions: the {@code baton_} prefix, base units in the name
 * ({@code _seconds}), {@code _total} for counters, labels of small fixed sets (procedure type,
 * outcome, state, wait reason, role, operator action); never a procedure id.
 */
public final class NodeMetrics {
  /** Operator actions and their outcomes, registered at 0. */
  public static final List<String> ACTIONS = List.of("abort", "resume");

  /** The action was carried out. */
  public static final String DONE = "done";

  /** The action was refused (it did not fit the procedure's or node's state). */
  public static final String REFUSED = "refused";

  static final String ACTION = "action";
  static final String OUTCOME = ExecutorRecorder.OUTCOME;

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
  private final ExecutorRecorder executor;
  private final Counter operatorActions;
  private volatile NodeReading reading = NodeReading.NONE;
  private ProcedureNode<?> node;

  /** Metrics with the executor's counters of every procedure type of {@code types} at 0. */
  public NodeMetrics(Collection<String> types) {
    this.executor = new ExecutorRecorder(registry, types);
    this.operatorActions =
        Counter.builder()
            .name("baton_operator_actions_total")
            .help("actions operators asked of this node, by action and outcome")
            .labelNames(ACTION, OUTCOME)
            .register(registry);
    for (String action : ACTIONS) {
      operatorActions.initLabelValues(action, DONE);
      operatorActions.initLabelValues(action, REFUSED);
    }
  }

  /** What the node's leader executors report to; see {@code ProcedureExecutor.Builder.metrics}. */
  public ProcedureMetrics executorMetrics() {
    return executor;
  }

  /** Adds the gauges of {@code watched}; call once, before the first scrape. */
  public synchronized void watch(ProcedureNode<?> watched) {
    if (node != null) {
      throw new IllegalStateException("already watching node " + node.nodeId());
    }
    node = watched;
    new NodeGauges(watched, () -> reading, registry);
  }

  /** Counts one operator action and how it ended ({@link #DONE}, {@link #REFUSED}). */
  public void operatorAction(String action, String outcome) {
    operatorActions.labelValues(action, outcome).inc();
  }

  /** The content type of {@link #scrape()}. */
  public String contentType() {
    return PrometheusTextFormatWriter.CONTENT_TYPE;
  }

  /** Every metric now, in the Prometheus text format. */
  public synchronized byte[] scrape() {
    if (node != null) {
      reading = NodeReading.of(node);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      writer.write(out, registry.scrape(), EscapingScheme.UNDERSCORE_ESCAPING);
    } catch (IOException e) {
      throw new UncheckedIOException("writing metrics to memory failed", e);
    }
    return out.toByteArray();
  }
}
