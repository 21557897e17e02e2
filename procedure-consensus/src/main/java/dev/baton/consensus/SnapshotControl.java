package dev.baton.consensus;

import java.io.IOException;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshots of the {@link ProcedureStateMachine} and the life cycle around them: loads the
 * newest snapshot at start and after one was installed from the leader, pauses for an installation,
 * and takes snapshots (written off the apply thread by the {@link SnapshotTaker}).
 */
final class SnapshotControl {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotControl.class);

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final ProcedureTable table;
  private final LifeCycle lifeCycle;
  private final Supplier<TermIndex> lastApplied;
  private final Consumer<TermIndex> setLastApplied;
  private final LongConsumer replaced;
  private final SnapshotTaker taker;

  /**
   * @param lifeCycle the state machine's life cycle, which Ratis checks
   * @param lastApplied the state machine's last applied entry
   * @param setLastApplied sets it to a loaded snapshot's
   * @param replaced hears that the table was replaced by the snapshot of an index (0: emptied)
   */
  SnapshotControl(
      ProcedureTable table,
      LifeCycle lifeCycle,
      Supplier<TermIndex> lastApplied,
      Consumer<TermIndex> setLastApplied,
      LongConsumer replaced) {
    this.table = table;
    this.lifeCycle = lifeCycle;
    this.lastApplied = lastApplied;
    this.setLastApplied = setLastApplied;
    this.replaced = replaced;
    this.taker = new SnapshotTaker(storage, this::freeze);
  }

  /** Opens the storage and loads its newest snapshot; the life cycle then runs. */
  void initialize(RaftStorage raftStorage) throws IOException {
    storage.init(raftStorage);
    lifeCycle.startAndTransition(() -> load(storage.getLatestSnapshot()));
  }

  /**
   * Ratis pauses the state machine before it replaces the state machine directory with a snapshot
   * installed from the leader, and checks that the life cycle says PAUSED (else the apply thread
   * fails and the server shuts down). A background snapshot write of an older image is cancelled
   * and awaited first, so it cannot land in the new directory or become the latest; no new one
   * starts while paused. applyTransaction is synchronous, so no apply runs that the installation
   * must wait for.
   */
  void pause() {
    if (lifeCycle.getCurrentState() == LifeCycle.State.RUNNING) {
      lifeCycle.transition(LifeCycle.State.PAUSING);
      taker.cancelInFlight();
      lifeCycle.transition(LifeCycle.State.PAUSED);
    }
  }

  /** Loads the newest snapshot on disk (one just installed from the leader) and runs again. */
  void reinitialize() throws IOException {
    SingleFileSnapshotInfo installed = storage.loadLatestSnapshot();
    load(installed);
    LOG.info(
        "Loaded the snapshot installed from the leader: {}",
        installed == null ? "none" : installed.getTermIndex());
    if (lifeCycle.getCurrentState() == LifeCycle.State.PAUSED) {
      lifeCycle.transition(LifeCycle.State.STARTING);
      lifeCycle.transition(LifeCycle.State.RUNNING);
    }
  }

  private void load(SingleFileSnapshotInfo snapshot) throws IOException {
    synchronized (table) {
      if (snapshot == null) {
        table.clear();
      } else {
        table.loadSnapshot(snapshot.getFile().getPath());
        setLastApplied.accept(snapshot.getTermIndex());
      }
    }
    replaced.accept(snapshot == null ? 0 : snapshot.getIndex());
  }

  StateMachineStorage storage() {
    return storage;
  }

  /**
   * Called by Ratis on its apply thread; writes in the background and returns the index of a
   * snapshot already durable, or -1 (see {@link SnapshotTaker}).
   */
  long take() throws IOException {
    return taker.take(() -> lifeCycle.getCurrentState() == LifeCycle.State.RUNNING);
  }

  private TableImage freeze() {
    synchronized (table) {
      TermIndex last = lastApplied.get();
      if (last == null || last.getIndex() < 0) {
        return null;
      }
      return table.freeze(last);
    }
  }

  /** The snapshot machinery (explicit requests, the test hook of the writer). */
  SnapshotTaker taker() {
    return taker;
  }

  void close() {
    taker.close();
  }
}
