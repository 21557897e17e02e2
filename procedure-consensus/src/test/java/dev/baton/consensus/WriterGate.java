package dev.baton.consensus;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * A test's hook in a node's background snapshot writer: parks each write before its rename until
 * released, or fails the first few writes as a disk error would; records what it saw. Closing it
 * releases every parked write (before the cluster closes, so no node waits for one).
 */
final class WriterGate implements SnapshotWriter.Hook, AutoCloseable {
  /** Longest a write stays parked, so a forgotten gate cannot hang a test's cluster. */
  static final long MAX_PARK_SECONDS = 60;

  private final boolean park;
  private final AtomicInteger failuresLeft;
  private final CountDownLatch parked = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);
  private final AtomicBoolean interrupted = new AtomicBoolean();
  final List<Attempt> attempts = new CopyOnWriteArrayList<>();

  record Attempt(long nanos, TermIndex at, Path tmp) {}

  private WriterGate(boolean park, int failures) {
    this.park = park;
    this.failuresLeft = new AtomicInteger(failures);
  }

  /** Parks writes until {@link #release}. */
  static WriterGate parking() {
    return new WriterGate(true, 0);
  }

  /** Fails the first {@code count} writes with an IOException. */
  static WriterGate failing(int count) {
    return new WriterGate(false, count);
  }

  /** Installs this gate in {@code node}'s writer; returns it. */
  WriterGate on(ProcedureNode<Work.Env> node) {
    node.stateMachine().snapshots().writer().hook(this);
    return this;
  }

  @Override
  public void beforeRename(Path tmp, TermIndex at) throws IOException, InterruptedException {
    attempts.add(new Attempt(System.nanoTime(), at, tmp));
    if (failuresLeft.getAndDecrement() > 0) {
      throw new IOException("injected disk error writing " + tmp);
    }
    if (park) {
      parked.countDown();
      try {
        released.await(MAX_PARK_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        interrupted.set(true);
        throw e;
      }
    }
  }

  boolean isParked() {
    return parked.getCount() == 0 && released.getCount() > 0;
  }

  /** The snapshot the first parked write holds. */
  TermIndex parkedAt() {
    return attempts.get(0).at();
  }

  boolean sawInterrupt() {
    return interrupted.get();
  }

  void release() {
    released.countDown();
  }

  @Override
  public void close() {
    release();
  }
}
