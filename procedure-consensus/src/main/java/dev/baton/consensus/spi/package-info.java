/**
 * What procedure-consensus makes public only for Baton's own modules (confignode-sim,
 * integration-test) and their tests, not for applications: no compatibility is promised, and an
 * application that embeds a {@link dev.baton.consensus.ProcedureNode} needs none of it. Holds
 * {@link dev.baton.consensus.spi.LoopbackPorts} (free loopback ports for local clusters). Uses the
 * JDK and slf4j only.
 */
package dev.baton.consensus.spi;
