package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code confignode-sim list [--state S] [--type T] --cluster ... [--format json|table]}: prints
 * the procedures, filtered ({@code GET /api/procedures?state=S&type=T}).
 */
@Command(
    name = "list",
    description = {"Prints the procedures, filtered by state and type."},
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ClientCommand.EXIT_REFUSED_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE
    })
final class ListCommand extends ClientCommand {
  @Option(
      names = "--state",
      paramLabel = "S",
      converter = StateConverter.class,
      description = "only this state: ${COMPLETION-CANDIDATES}")
  ProcedureState state;

  @Option(names = "--type", paramLabel = "T", description = "only this procedure type")
  String type;

  @Mixin FormatOption format;

  @Mixin ClusterOptions cluster;

  @Override
  ClusterOptions cluster() {
    return cluster;
  }

  @Override
  int run(NodeApiClient api) throws IOException, InterruptedException {
    List<String> query = new ArrayList<>();
    if (state != null) {
      query.add("state=" + state.name());
    }
    if (type != null) {
      query.add("type=" + URLEncoder.encode(type, StandardCharsets.UTF_8));
    }
    JsonNode all = api.listProcedures(String.join("&", query));
    if (format.table()) {
      List<JsonNode> rows = new ArrayList<>();
      all.forEach(rows::add);
      ProcedureTablePrinter.print(out(), rows);
    } else {
      printJson(out(), all);
    }
    return 0;
  }

  /** Reads a {@link ProcedureState} by its name. */
  static final class StateConverter implements ITypeConverter<ProcedureState> {
    @Override
    public ProcedureState convert(String value) {
      try {
        return ProcedureState.valueOf(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(
            "names an unknown state '" + value + "'; states: " + List.of(ProcedureState.values()));
      }
    }
  }
}
