package dev.baton.confignode.procedures;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureRegistry;
import java.util.Iterator;
import java.util.Set;

/** The ConfigNode's procedure types: their registry, and how to build one from API arguments. */
public final class ConfigNodeProcedures {
  /** Defaults of CreateDatabase when the request does not say. */
  public static final int DEFAULT_SCHEMA_REGIONS = 1;

  public static final int DEFAULT_DATA_REGIONS = 2;
  public static final int DEFAULT_REPLICATION = 2;

  private ConfigNodeProcedures() {}

  public static ProcedureRegistry registry() {
    return new ProcedureRegistry()
        .register("CreateDatabase", CreateDatabase.class, CreateDatabase::new)
        .register("DeleteDatabase", DeleteDatabase.class, DeleteDatabase::new)
        .register("AddDataNode", AddDataNode.class, AddDataNode::new)
        .register("RemoveDataNode", RemoveDataNode.class, RemoveDataNode::new)
        .register("MigrateRegion", MigrateRegion.class, MigrateRegion::new)
        .register("Noop", Noop.class, Noop::new)
        .register("Sleep", Sleep.class, Sleep::new);
  }

  /**
   * A procedure of {@code type} from its JSON arguments.
   *
   * @throws IllegalArgumentException naming the problem: unknown type, missing, unknown or invalid
   *     argument
   */
  @SuppressWarnings("unchecked")
  public static <E> Procedure<E> create(String type, JsonNode args) {
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
            yield new Noop(integer(a, "steps", Noop.DEFAULT_STEPS));
          }
          case "Sleep" -> {
            allow(a, "millis");
            yield new Sleep(integer(a, "millis", null));
          }
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
