package dev.baton.confignode.datanode;

import dev.baton.confignode.http.HttpLimits;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Configuration of a simulated DataNode.
 *
 * @param id the DataNode's id; a data directory belongs to one id
 * @param dataDir where the state lives; created if missing
 * @param bindHost the address it listens on ({@value #DEFAULT_BIND} by default)
 * @param port HTTP port; 0 picks a free one ({@link DataNodeServer#port()})
 * @param ledgerCapacity idempotency ledger entries kept; the oldest are dropped beyond it (a
 *     command older than that would be applied again, which every command tolerates)
 * @param historyCapacity entries kept in each of the rejected, duplicate and invalidation logs
 * @param snapshotEvery journal lines after which the state is snapshotted and the journal emptied
 * @param limits the HTTP server's limits
 * @param guard TLS, who may call what, and whether the fault routes exist
 */
public record DataNodeConfig(
    int id,
    Path dataDir,
    String bindHost,
    int port,
    int ledgerCapacity,
    int historyCapacity,
    int snapshotEvery,
    HttpLimits limits,
    DataNodeGuard guard) {

  public static final String DEFAULT_BIND = "127.0.0.1";

  public static final int DEFAULT_LEDGER_CAPACITY = 10_000;
  public static final int DEFAULT_HISTORY_CAPACITY = 1_000;
  public static final int DEFAULT_SNAPSHOT_EVERY = 1_000;

  /** Highest TCP port. */
  public static final int MAX_PORT = 65_535;

  public DataNodeConfig {
    if (id < 0) {
      throw new IllegalArgumentException("DataNode id must be zero or positive, got " + id);
    }
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(bindHost, "bindHost");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(guard, "guard");
    if (port < 0 || port > MAX_PORT) {
      throw new IllegalArgumentException("port must be in 0.." + MAX_PORT + ", got " + port);
    }
    positive("ledgerCapacity", ledgerCapacity);
    positive("historyCapacity", historyCapacity);
    positive("snapshotEvery", snapshotEvery);
  }

  /**
   * DataNode {@code id} on {@code dataDir}, on a free loopback port, with default capacities, plain
   * HTTP and no fault routes ({@link DataNodeGuard#PLAIN}).
   */
  public static DataNodeConfig of(int id, Path dataDir) {
    return new DataNodeConfig(
        id,
        dataDir,
        DEFAULT_BIND,
        0,
        DEFAULT_LEDGER_CAPACITY,
        DEFAULT_HISTORY_CAPACITY,
        DEFAULT_SNAPSHOT_EVERY,
        HttpLimits.DATANODE,
        DataNodeGuard.PLAIN);
  }

  public DataNodeConfig withPort(int port) {
    return new DataNodeConfig(
        id, dataDir, bindHost, port, ledgerCapacity, historyCapacity, snapshotEvery, limits, guard);
  }

  /** Listening on {@code host} instead. */
  public DataNodeConfig withBindHost(String host) {
    return new DataNodeConfig(
        id, dataDir, host, port, ledgerCapacity, historyCapacity, snapshotEvery, limits, guard);
  }

  /** With the HTTP server's limits {@code limits}. */
  public DataNodeConfig withLimits(HttpLimits limits) {
    return new DataNodeConfig(
        id, dataDir, bindHost, port, ledgerCapacity, historyCapacity, snapshotEvery, limits, guard);
  }

  public DataNodeConfig withLedgerCapacity(int entries) {
    return new DataNodeConfig(
        id, dataDir, bindHost, port, entries, historyCapacity, snapshotEvery, limits, guard);
  }

  public DataNodeConfig withHistoryCapacity(int entries) {
    return new DataNodeConfig(
        id, dataDir, bindHost, port, ledgerCapacity, entries, snapshotEvery, limits, guard);
  }

  public DataNodeConfig withSnapshotEvery(int lines) {
    return new DataNodeConfig(
        id, dataDir, bindHost, port, ledgerCapacity, historyCapacity, lines, limits, guard);
  }

  /** With {@code guard} (TLS, who may call what, fault routes). */
  public DataNodeConfig withGuard(DataNodeGuard guard) {
    return new DataNodeConfig(
        id, dataDir, bindHost, port, ledgerCapacity, historyCapacity, snapshotEvery, limits, guard);
  }

  private static void positive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
  }
}
