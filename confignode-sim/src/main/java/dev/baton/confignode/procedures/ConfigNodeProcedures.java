package dev.baton.confignode.procedures;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureRegistry;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** The ConfigNode's procedure types: their registry, and how to build one from API arguments. */
public final class ConfigNodeProcedures {
  /**
   * The nonce group of the node's own submissions (the DataNodes it registers at start). Requests
   * through the admin API may not use it, so no client can collide with, or pre-empt, them.
   */
  public static final long NODE_NONCE_GROUP = 1;

  /** Defaults of CreateDatabase when the request does not say. */
  public static final int DEFAULT_SCHEMA_REGIONS = 1;

  public static final int DEFAULT_DATA_REGIONS = 2;
  public static final int DEFAULT_REPLICATION = 2;

  /** How long a LockPair holds its first lock before asking for its second, when not said. */
  public static final int DEFAULT_LOCK_PAIR_PAUSE_MILLIS = 1_000;

  /** One procedure type: its registered name, class and factory. */
  private record Type<P extends ConfigNodeProcedure<?>>(
      String name, Class<P> cls, Supplier<P> factory) {}

  private static final List<Type<?>> TYPES =
      List.of(
          new Type<>("CreateDatabase", CreateDatabase.class, CreateDatabase::new),
          new Type<>("DeleteDatabase", DeleteDatabase.class, DeleteDatabase::new),
          new Type<>("AddDataNode", AddDataNode.class, AddDataNode::new),
          new Type<>("RemoveDataNode", RemoveDataNode.class, RemoveDataNode::new),
          new Type<>("MigrateRegion", MigrateRegion.class, MigrateRegion::new),
          new Type<>("Noop", Noop.class, Noop::new),
          new Type<>("Sleep", Sleep.class, Sleep::new),
          new Type<>("LockPair", LockPair.class, LockPair::new),
          new Type<>("AddConfigNode", AddConfigNode.class, AddConfigNode::new),
          new Type<>("RemoveConfigNode", RemoveConfigNode.class, RemoveConfigNode::new),
          new Type<>("ReplaceConfigNode", ReplaceConfigNode.class, ReplaceConfigNode::new));

  /**
   * The membership changes: submitted only through the admin API's membership routes (role admin),
   * never as an ordinary procedure.
   */
  public static final Set<String> MEMBERSHIP_TYPES =
      Set.of("AddConfigNode", "RemoveConfigNode", "ReplaceConfigNode");

  private ConfigNodeProcedures() {}

  public static ProcedureRegistry registry() {
    ProcedureRegistry registry = new ProcedureRegistry();
    for (Type<?> t : TYPES) {
      register(registry, t);
    }
    return registry;
  }

  private static <P extends ConfigNodeProcedure<?>> void register(
      ProcedureRegistry registry, Type<P> t) {
    registry.register(t.name(), t.cls(), t.factory());
  }

  /** Every type's state names, in execution order, by type name. */
  public static Map<String, List<String>> stateNames() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Type<?> t : TYPES) {
      out.put(t.name(), t.factory().get().stateNames());
    }
    return out;
  }

  /**
   * A procedure of {@code type} from its JSON arguments.
   *
   * @throws IllegalArgumentException naming the problem: unknown type, missing, unknown or invalid
   *     argument
   */
  public static <E> Procedure<E> create(String type, JsonNode args) {
    return create(type, args, ProcedureLimits.DEFAULTS);
  }

  /** As {@link #create(String, JsonNode)}, within {@code limits}. */
  @SuppressWarnings("unchecked")
  public static <E> Procedure<E> create(String type, JsonNode args, ProcedureLimits limits) {
    JsonNode a =
        args == null || args.isNull()
            ? com.fasterxml.jackson.databind.node.NullNode.instance
            : args;
    if (!a.isNull() && !a.isObject()) {
      throw new IllegalArgumentException("args must be a JSON object");
    }
    Procedure<?> p =
        switch (type == null ? "" : type) {
          case "CreateDatabase" -> {
            allow(a, "name", "schemaRegions", "dataRegions", "replication");
            yield new CreateDatabase(
                text(a, "name"),
                integer(a, "schemaRegions", DEFAULT_SCHEMA_REGIONS),
                integer(a, "dataRegions", DEFAULT_DATA_REGIONS),
                integer(a, "replication", DEFAULT_REPLICATION));
          }
          case "DeleteDatabase" -> {
            allow(a, "name");
            yield new DeleteDatabase(text(a, "name"));
          }
          case "AddDataNode" -> {
            allow(a, "address");
            yield new AddDataNode(text(a, "address"));
          }
          case "RemoveDataNode" -> {
            allow(a, "dataNodeId");
            yield new RemoveDataNode(integer(a, "dataNodeId", null));
          }
          case "MigrateRegion" -> {
            allow(a, "regionId", "from", "to");
            yield new MigrateRegion(
                integer(a, "regionId", null), integer(a, "from", null), integer(a, "to", null));
          }
          case "Noop" -> {
            allow(a, "steps");
            Noop noop = new Noop(integer(a, "steps", Noop.DEFAULT_STEPS));
            limits.checkNoopSteps(noop.steps);
            yield noop;
          }
          case "Sleep" -> {
            allow(a, "millis");
            Sleep sleep = new Sleep(integer(a, "millis", null));
            limits.checkSleepMillis(sleep.millis);
            yield sleep;
          }
          case "LockPair" -> {
            allow(a, "first", "second", "pauseMillis");
            yield new LockPair(
                text(a, "first"),
                text(a, "second"),
                integer(a, "pauseMillis", DEFAULT_LOCK_PAIR_PAUSE_MILLIS));
          }
          case "AddConfigNode", "RemoveConfigNode", "ReplaceConfigNode" ->
              throw new IllegalArgumentException(
                  type
                      + " changes the ConfigNode membership: submit it through POST"
                      + " /api/membership/... (role admin), e.g. the command "
                      + type.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT));
          default ->
              throw new IllegalArgumentException(
                  "unknown procedure type '" + type + "'; known: " + registry().types());
        };
    return (Procedure<E>) p;
  }

  private static void allow(JsonNode a, String... names) {
    if (a.isNull()) {
      return;
    }
    Set<String> allowed = Set.of(names);
    for (Iterator<String> it = a.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!allowed.contains(f)) {
        throw new IllegalArgumentException("unknown argument '" + f + "'; allowed: " + allowed);
      }
    }
  }

  private static String text(JsonNode a, String name) {
    JsonNode v = a.get(name);
    if (v == null || !v.isTextual()) {
      throw new IllegalArgumentException("argument '" + name + "' must be a string");
    }
    return v.asText();
  }

  private static int integer(JsonNode a, String name, Integer dflt) {
    JsonNode v = a.get(name);
    if (v == null || v.isNull()) {
      if (dflt == null) {
        throw new IllegalArgumentException("argument '" + name + "' is required");
      }
      return dflt;
    }
    if (!v.isInt()) {
      throw new IllegalArgumentException("argument '" + name + "' must be an integer");
    }
    return v.asInt();
  }
}
