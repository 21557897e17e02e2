package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import java.io.IOException;
import java.io.PrintStream;
import picocli.CommandLine.Mixin;

/**
 * A client command that reads one answer of the admin API ({@code GET}) and prints it: as JSON, or
 * with {@code --format table} for people.
 */
abstract class ViewCommand extends ClientCommand {
  @Mixin FormatOption format;

  @Mixin ClusterOptions cluster;

  @Override
  final ClusterOptions cluster() {
    return cluster;
  }

  /** The admin API path to read. */
  abstract String path();

  /** Prints the answer for people. */
  abstract void printTable(PrintStream out, JsonNode answer) throws IOException;

  @Override
  int run(NodeApiClient api) throws IOException, InterruptedException {
    JsonNode answer = api.get(path());
    if (format.table()) {
      printTable(out(), answer);
    } else {
      printJson(out(), answer);
    }
    return 0;
  }
}
