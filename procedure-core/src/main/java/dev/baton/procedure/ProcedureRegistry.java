package dev.baton.procedure;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The allow-list of procedure types that may be stored and read back. Stored records name their
 * type; only a registered factory can turn them into objects (never {@code Class.forName}).
 */
public final class ProcedureRegistry {
  private static final Pattern TYPE_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.\\-]{0,127}");

  private final Map<String, Entry<?>> byType = new ConcurrentHashMap<>();
  private final Map<Class<?>, String> byClass = new ConcurrentHashMap<>();

  private record Entry<P extends Procedure<?>>(String type, Class<P> cls, Supplier<P> factory) {}

  /**
   * Registers {@code type} for {@code cls}. A type name is a letter followed by up to 127 letters,
   * digits, '_', '.' or '-'. The factory, and the {@code readState} of what it makes, may be called
   * from several threads at once when an executor starts (each call on its own instance).
   *
   * @throws IllegalArgumentException for a bad name, or a name or class registered twice
   */
  public <P extends Procedure<?>> ProcedureRegistry register(
      String type, Class<P> cls, Supplier<P> factory) {
    Objects.requireNonNull(cls, "cls");
    Objects.requireNonNull(factory, "factory");
    if (type == null || !TYPE_NAME.matcher(type).matches()) {
      throw new IllegalArgumentException(
          "procedure type name must match " + TYPE_NAME.pattern() + ", got '" + type + "'");
    }
    String previousType = byClass.putIfAbsent(cls, type);
    if (previousType != null && !previousType.equals(type)) {
      throw new IllegalArgumentException(
          cls.getName() + " is already registered as type '" + previousType + "'");
    }
    Entry<?> previous = byType.putIfAbsent(type, new Entry<>(type, cls, factory));
    if (previous != null && previous.cls() != cls) {
      throw new IllegalArgumentException(
          "procedure type '" + type + "' is already registered for " + previous.cls().getName());
    }
    return this;
  }

  /** The registered type name of {@code proc}'s class. */
  public Optional<String> typeOf(Procedure<?> proc) {
    return Optional.ofNullable(byClass.get(proc.getClass()));
  }

  /** The registered type names, sorted. */
  public java.util.SortedSet<String> types() {
    return new java.util.TreeSet<>(byType.keySet());
  }

  /** Whether {@code type} is registered. */
  public boolean isRegistered(String type) {
    return byType.containsKey(type);
  }

  /**
   * A new, empty instance of {@code type}, its type set to the registered name (one string shared
   * by every instance, not a copy per decoded record). A recovery calls factories from several
   * threads at once (see {@link RecordDecoding}).
   *
   * @throws UnknownProcedureTypeException if the type is not registered
   */
  Procedure<?> newInstance(String type) throws UnknownProcedureTypeException {
    Entry<?> entry = byType.get(type);
    if (entry == null) {
      throw new UnknownProcedureTypeException(type);
    }
    Procedure<?> proc = entry.factory().get();
    if (proc == null || proc.getClass() != entry.cls()) {
      throw new IllegalStateException(
          "factory of procedure type '" + type + "' returned " + proc + ", not a " + entry.cls());
    }
    proc.setType(entry.type());
    return proc;
  }
}
