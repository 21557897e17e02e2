package dev.baton.procedure;

import dev.baton.procedure.store.StoreRecord;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The first part of a recovery: every stored record decoded into a fresh procedure object. Records
 * are independent of each other here (wiring them comes after, on one thread), so a large store is
 * split into contiguous ranges decoded on up to {@link ExecutorConfig#recoveryThreads} threads. A
 * new leader decodes every live procedure at once, mostly in code the JIT has not compiled yet (it
 * runs once per leader change), so on a large store this is most of the rebuild's time.
 */
final class RecordDecoding {
  /**
   * Fewer records than this per thread are decoded by fewer threads: starting a thread and handing
   * its results over costs about what decoding a few thousand records does.
   */
  static final int MIN_RECORDS_PER_THREAD = 8_192;

  /**
   * What decoding gave, by the record's position in the store's list: the procedure, or why it
   * could not be read (exactly one of the two is set per position).
   */
  record Result(Procedure<?>[] procedures, ProcedureCodecException[] failures) {}

  private RecordDecoding() {}

  /** How many threads decode {@code records} records with at most {@code maxThreads}. */
  static int threadsFor(int records, int maxThreads) {
    return Math.max(1, Math.min(maxThreads, records / MIN_RECORDS_PER_THREAD));
  }

  /**
   * Decodes every record, the first range on the calling thread and the others on helper threads
   * named after {@code name}.
   *
   * @throws InterruptedIOException if the calling thread is interrupted while helpers still run
   *     (they are interrupted and their results dropped)
   */
  static Result decode(ProcedureCodec codec, List<StoreRecord> records, int maxThreads, String name)
      throws InterruptedIOException {
    int n = records.size();
    Result result = new Result(new Procedure<?>[n], new ProcedureCodecException[n]);
    int threads = threadsFor(n, maxThreads);
    if (threads == 1) {
      decodeRange(codec, records, 0, n, result);
      return result;
    }
    AtomicReference<Throwable> helperFailure = new AtomicReference<>();
    Thread[] helpers = new Thread[threads - 1];
    for (int t = 1; t < threads; t++) {
      int from = rangeStart(n, threads, t);
      int to = rangeStart(n, threads, t + 1);
      Thread helper =
          new Thread(
              () -> {
                try {
                  decodeRange(codec, records, from, to, result);
                } catch (RuntimeException | Error e) {
                  helperFailure.compareAndSet(null, e);
                }
              },
              name + "-decode-" + t);
      helper.setDaemon(true);
      helpers[t - 1] = helper;
      helper.start();
    }
    try {
      decodeRange(codec, records, 0, rangeStart(n, threads, 1), result);
    } catch (RuntimeException | Error e) {
      interruptAll(helpers);
      throw e;
    }
    for (Thread helper : helpers) {
      try {
        helper.join(); // also what makes the helper's array writes visible here
      } catch (InterruptedException e) {
        interruptAll(helpers);
        Thread.currentThread().interrupt();
        InterruptedIOException io =
            new InterruptedIOException("interrupted while decoding the store's records");
        io.initCause(e);
        throw io;
      }
    }
    Throwable failed = helperFailure.get();
    if (failed instanceof RuntimeException re) {
      throw re;
    }
    if (failed instanceof Error err) {
      throw err;
    }
    return result;
  }

  /** The first position of range {@code t} of {@code threads} equal ranges over {@code n}. */
  private static int rangeStart(int n, int threads, int t) {
    return (int) ((long) n * t / threads);
  }

  private static void decodeRange(
      ProcedureCodec codec, List<StoreRecord> records, int from, int to, Result into) {
    for (int i = from; i < to; i++) {
      StoreRecord r = records.get(i);
      try {
        into.procedures[i] = codec.decode(r.procId(), r.data(), r.parts());
      } catch (ProcedureCodecException e) {
        into.failures[i] = e;
      }
    }
  }

  private static void interruptAll(Thread[] helpers) {
    for (Thread helper : helpers) {
      helper.interrupt();
    }
  }
}
