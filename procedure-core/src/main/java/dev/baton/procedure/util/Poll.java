package dev.baton.procedure.util;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Waits for a condition by polling it: looks, and while the answer is "not yet" pauses and looks
 * again, every fixed interval or with pauses that double up to a cap. It returns the condition's
 * value as soon as it holds; once the deadline has passed it throws an error naming what was
 * awaited, the last value seen and the last failure; an interrupt propagates at once (it never
 * counts as "not yet"). A failure of the probe counts as "not yet" only if {@link #notYetOn} or
 * {@link #notYetIf} says so; any other failure propagates. Configured like a builder: each setting
 * changes this {@code Poll} and returns it, so make one per wait rather than share a configured one
 * between threads.
 *
 * <pre>{@code
 * ProcedureInfo info =
 *     Poll.every(Duration.ofMillis(20))
 *         .within(timeout)
 *         .awaiting("procedure " + id + " finished")
 *         .notYetOn(IOException.class)
 *         .until(() -> read(id), ProcedureInfo::finished);
 * }</pre>
 *
 * @param <X> what the deadline passing throws: {@link TimeoutException} unless {@link #onTimeout}
 *     says otherwise
 */
public final class Poll<X extends Exception> {
  /** One look at the condition. */
  @FunctionalInterface
  public interface Probe<T, E extends Exception> {
    T get() throws E, InterruptedException;
  }

  /** Pauses the polling thread; {@link Thread#sleep} unless a test injects its own. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration pause) throws InterruptedException;
  }

  /**
   * The deadline passed.
   *
   * @param what what was awaited
   * @param timeout how long it was awaited
   * @param lastValue the last value the probe gave that did not satisfy the condition, or null
   * @param lastFailure the last failure of the probe that counted as "not yet", or null
   */
  public record Expiry(String what, Duration timeout, Object lastValue, Exception lastFailure) {
    /** {@code gave up after 60 s waiting for: WHAT (last seen: VALUE; last error: MESSAGE)}. */
    public String message() {
      StringBuilder m =
          new StringBuilder("gave up after ")
              .append(describe(timeout))
              .append(" waiting for: ")
              .append(what);
      if (lastValue != null || lastFailure != null) {
        m.append(" (");
        if (lastValue != null) {
          m.append("last seen: ").append(lastValue);
        }
        if (lastValue != null && lastFailure != null) {
          m.append("; ");
        }
        if (lastFailure != null) {
          m.append("last error: ").append(lastFailure.getMessage());
        }
        m.append(')');
      }
      return m.toString();
    }

    private static String describe(Duration d) {
      long millis = d.toMillis();
      return millis % TimeUnit.SECONDS.toMillis(1) == 0 ? d.toSeconds() + " s" : millis + " ms";
    }
  }

  private static final Sleeper THREAD_SLEEP = pause -> TimeUnit.NANOSECONDS.sleep(pause.toNanos());

  private static final Function<Expiry, TimeoutException> TIMEOUT_EXCEPTION =
      expiry -> {
        TimeoutException e = new TimeoutException(expiry.message());
        e.initCause(expiry.lastFailure());
        return e;
      };

  private final Duration firstPause;
  private final Duration maxPause;
  private final Function<Expiry, X> onTimeout;
  private boolean pauseFirst;
  private Duration timeout;
  private String what = "the condition";
  private Predicate<Exception> notYet = e -> false;
  private LongSupplier nanoTime = System::nanoTime;
  private Sleeper sleeper = THREAD_SLEEP;

  private Poll(Duration firstPause, Duration maxPause, Function<Expiry, X> onTimeout) {
    this.firstPause = firstPause;
    this.maxPause = maxPause;
    this.onTimeout = onTimeout;
  }

  /** Polls every {@code interval}, with no deadline until {@link #within} sets one. */
  public static Poll<TimeoutException> every(Duration interval) {
    return backoff(interval, interval);
  }

  /**
   * Pauses {@code first} after the first look, then twice as long after each further one, never
   * longer than {@code max}; no deadline until {@link #within} sets one.
   */
  public static Poll<TimeoutException> backoff(Duration first, Duration max) {
    requirePositive(first, "pause");
    requirePositive(max, "largest pause");
    if (max.compareTo(first) < 0) {
      throw new IllegalArgumentException(
          "the largest pause " + max + " is shorter than the first " + first);
    }
    return new Poll<>(first, max, TIMEOUT_EXCEPTION);
  }

  /** Gives up once {@code timeout} has passed since the polling started (0: after one look). */
  public Poll<X> within(Duration timeout) {
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative, got " + timeout);
    }
    this.timeout = timeout;
    return this;
  }

  /** What is awaited, for the error when the deadline passes ("procedure 12 finished"). */
  public Poll<X> awaiting(String what) {
    this.what = Objects.requireNonNull(what, "what");
    return this;
  }

  /**
   * Pauses before the first look too (the first pause, then the next ones as usual), for a
   * condition that cannot hold at once.
   */
  public Poll<X> pauseFirst() {
    this.pauseFirst = true;
    return this;
  }

  /** Failures of the probe of this type (subtypes included) mean "not yet", not an error. */
  public Poll<X> notYetOn(Class<? extends Exception> type) {
    return notYetIf(type, e -> true);
  }

  /** Failures of the probe of this type that pass {@code test} mean "not yet", not an error. */
  public <F extends Exception> Poll<X> notYetIf(Class<F> type, Predicate<? super F> test) {
    Predicate<Exception> before = notYet;
    notYet = e -> before.test(e) || (type.isInstance(e) && test.test(type.cast(e)));
    return this;
  }

  /**
   * What to throw when the deadline passes, made from the {@link Expiry} (e.g. {@code e -> new
   * IOException(e.message(), e.lastFailure())}); the other settings carry over.
   */
  public <Y extends Exception> Poll<Y> onTimeout(Function<Expiry, Y> error) {
    Poll<Y> next = new Poll<>(firstPause, maxPause, Objects.requireNonNull(error, "error"));
    next.pauseFirst = pauseFirst;
    next.timeout = timeout;
    next.what = what;
    next.notYet = notYet;
    next.nanoTime = nanoTime;
    next.sleeper = sleeper;
    return next;
  }

  /** The clock ({@link System#nanoTime} by default) and the pause; for tests. */
  public Poll<X> clock(LongSupplier nanoTime, Sleeper sleeper) {
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    return this;
  }

  /** The probe's first non-null value. */
  public <T, E extends Exception> T until(Probe<T, E> probe) throws E, X, InterruptedException {
    return until(probe, Objects::nonNull);
  }

  /** Returns once the probe answers true. */
  public <E extends Exception> void untilTrue(Probe<Boolean, E> probe)
      throws E, X, InterruptedException {
    until(() -> Boolean.TRUE.equals(probe.get()) ? Boolean.TRUE : null);
  }

  /** The probe's first value that satisfies {@code done}. */
  public <T, E extends Exception> T until(Probe<T, E> probe, Predicate<? super T> done)
      throws E, X, InterruptedException {
    long start = nanoTime.getAsLong();
    T lastValue = null;
    Exception lastFailure = null;
    Duration pause = firstPause;
    if (pauseFirst) {
      pause = pauseThenNext(pause);
    }
    while (true) {
      try {
        T value = probe.get();
        if (done.test(value)) {
          return value;
        }
        lastValue = value;
      } catch (Exception e) {
        lastFailure = this.<E>notYetOrRethrow(e);
      }
      if (expired(start)) {
        throw onTimeout.apply(new Expiry(what, timeout, lastValue, lastFailure));
      }
      pause = pauseThenNext(pause);
    }
  }

  /**
   * The call's result, the call repeated while it fails with a "not yet" failure; once the deadline
   * has passed, that failure itself is thrown (it says what failed). For calls that are safe to
   * repeat.
   */
  public <T, E extends Exception> T retry(Probe<T, E> call) throws E, InterruptedException {
    long start = nanoTime.getAsLong();
    Duration pause = firstPause;
    if (pauseFirst) {
      pause = pauseThenNext(pause);
    }
    while (true) {
      try {
        return call.get();
      } catch (Exception e) {
        Exception notYetFailure = this.<E>notYetOrRethrow(e);
        if (expired(start)) {
          throw Poll.<E>rethrow(notYetFailure);
        }
      }
      pause = pauseThenNext(pause);
    }
  }

  /**
   * {@code e} if it means "not yet"; else {@code e} is thrown. The probe declares only {@code E}
   * and {@link InterruptedException}, so anything it throws is one of those or unchecked.
   */
  private <E extends Exception> Exception notYetOrRethrow(Exception e)
      throws E, InterruptedException {
    if (e instanceof InterruptedException interrupted) {
      throw interrupted;
    }
    if (e instanceof InterruptedIOException || !notYet.test(e)) {
      throw Poll.<E>rethrow(e);
    }
    return e;
  }

  @SuppressWarnings("unchecked")
  private static <E extends Exception> E rethrow(Exception e) throws E {
    throw (E) e;
  }

  private boolean expired(long start) {
    return timeout != null && nanoTime.getAsLong() - start >= saturatedNanos(timeout);
  }

  /** Pauses {@code pause}; returns the next pause: twice as long, at most the largest pause. */
  private Duration pauseThenNext(Duration pause) throws InterruptedException {
    sleeper.sleep(pause);
    return maxPause.minus(pause).compareTo(pause) <= 0 ? maxPause : pause.multipliedBy(2);
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }

  private static void requirePositive(Duration d, String name) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + d);
    }
  }
}
