/**
 * The ConfigNode's Prometheus metrics ({@code GET /metrics}): the executor's events recorded as
 * counters and histograms ({@link dev.baton.confignode.metrics.ExecutorRecorder}), gauges read from
 * the node at each scrape ({@link dev.baton.confignode.metrics.NodeGauges}), operator actions, and
 * the text exposition ({@link dev.baton.confignode.metrics.NodeMetrics}). The only package that
 * uses the Prometheus client; uses {@code dev.baton.procedure} and {@code dev.baton.consensus},
 * nothing else of the ConfigNode.
 */
package dev.baton.confignode.metrics;
