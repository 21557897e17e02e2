package dev.baton.confignode.procedures;

import dev.baton.procedure.scheduler.LockRequest;
import dev.baton.procedure.scheduler.ResourceKey;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.regex.Pattern;

/**
 * A demo and test type that can deadlock: it takes the named lock {@code first} (exclusive, held
 * until it finishes), waits {@code pauseMillis} (a {@link Sleep} child), then asks for {@code
 * second} through a child {@code LockPair} that takes only that lock and finishes. Two of them with
 * the two names in reversed order, submitted within the pause, each hold one lock while their
 * children ask for the other's: a wait-for cycle (child, holder, its child, holder). The executor's
 * deadlock detector finds it; by default it fails the youngest of the cycle, whose tree rolls back
 * and releases its lock, and the other pair finishes. Its locks are {@code NODE} resources named
 * {@value #KEY_PREFIX}NAME, apart from every real DataNode's.
 */
public final class LockPair extends ConfigNodeProcedure<LockPair.S> {
  enum S {
    HOLD_FIRST,
    TAKE_SECOND
  }

  /** What a lock name becomes as a resource, so it never names a real DataNode. */
  public static final String KEY_PREFIX = "demo-lock:";

  /** Lock names: letters, digits, {@code . _ -}. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  /** The longest pause a pair may ask for, one hour. */
  static final long MAX_PAUSE_MILLIS = 3_600_000;

  String first;

  /** Empty for the child, which takes only {@link #first}. */
  String second = "";

  long pauseMillis;

  public LockPair() {
    super(S.class);
  }

  /**
   * @param first the lock held for the whole run
   * @param second the lock the child asks for after the pause
   * @param pauseMillis how long to hold {@code first} before asking for {@code second}
   */
  public LockPair(String first, String second, long pauseMillis) {
    this();
    this.first = checkName("first", first);
    this.second = checkName("second", second);
    if (first.equals(second)) {
      throw new IllegalArgumentException(
          "first and second must name two locks, both are '" + first + "'");
    }
    if (pauseMillis < 0 || pauseMillis > MAX_PAUSE_MILLIS) {
      throw new IllegalArgumentException(
          "pauseMillis must be within 0.." + MAX_PAUSE_MILLIS + ": " + pauseMillis);
    }
    this.pauseMillis = pauseMillis;
  }

  /** The child: takes {@code lock} and finishes. */
  private static LockPair taking(String lock) {
    LockPair child = new LockPair();
    child.first = lock;
    return child;
  }

  private static String checkName(String arg, String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "argument '" + arg + "' must be 1 to 64 letters, digits, '.', '_' or '-': " + name);
    }
    return name;
  }

  /** The resource a lock name stands for. */
  public static ResourceKey key(String name) {
    return ResourceKey.node(KEY_PREFIX + name);
  }

  @Override
  protected LockRequest lockRequest(ConfigNodeEnv env) {
    return LockRequest.exclusive(key(first));
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) {
    if (second.isEmpty()) {
      return Flow.NO_MORE_STATE; // the child: holding its lock was all it had to do
    }
    if (state == S.HOLD_FIRST) {
      addChildProcedure(new Sleep(pauseMillis));
      return next(state);
    }
    addChildProcedure(taking(second));
    return Flow.NO_MORE_STATE;
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state) {}

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(first);
    out.writeUTF(second);
    out.writeLong(pauseMillis);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    first = in.readUTF();
    second = in.readUTF();
    pauseMillis = in.readLong();
  }
}
