package dev.baton.confignode.cli;

import dev.baton.confignode.auth.Role;
import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.confignode.certs.ClusterFiles;
import dev.baton.confignode.cluster.ClusterTokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code confignode-sim certs --out DIR --nodes cn1,cn2,cn3 [--datanodes N] [--hosts H,...]}: a
 * throwaway CA, a certificate per ConfigNode and DataNode naming its id and hosts, a client
 * certificate per role, and admin-API tokens, for drills and tests. A production cluster brings its
 * own PKI and token store.
 */
@Command(
    name = "certs",
    description = {
      "Makes throwaway certificates and tokens for tests.",
      "Writes DIR/ca.pem, DIR/nodes/ID/{cert,key}.pem, DIR/datanodes/N/..., DIR/clients/ROLE/...,"
          + " DIR/tokens (for node --tokens) and DIR/token-ROLE (for --token-file). Production"
          + " brings its own PKI."
    },
    exitCodeList = {"0:written", "2:bad flags, or DIR is not empty", "4:could not write"})
final class CertsCommand extends CliCommand {
  static final int EXIT_WRITE_FAILED = 4;
  static final int MAX_DATANODES = 1_000;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "an empty directory")
  Path out;

  @Option(
      names = "--nodes",
      required = true,
      split = ",",
      paramLabel = "ID,...",
      description = "the ConfigNode ids")
  List<String> nodes;

  @Bounds(min = 0, max = MAX_DATANODES)
  @Option(names = "--datanodes", paramLabel = "N", description = "DataNodes 1..N")
  int dataNodes;

  @Option(
      names = "--hosts",
      split = ",",
      paramLabel = "HOST,...",
      description = "the host names and addresses every node is reached at (default: loopback)")
  List<String> hosts = ClusterCertificates.LOOPBACK_HOSTS;

  @Override
  public Integer call() {
    try {
      if (Files.exists(out)) {
        try (Stream<Path> entries = Files.list(out)) {
          if (entries.findAny().isPresent()) {
            throw usageError("--out " + out + " is not empty: certificates are never overwritten");
          }
        }
      }
      Files.createDirectories(out);
      ClusterFiles files = ClusterCertificates.write(out, nodes, dataNodes, hosts);
      ClusterTokens tokens = ClusterTokens.write(out);
      Map<Role, Path> clientTokens = tokens.writeClientFiles(out);
      out().println("CA " + files.ca());
      for (String id : nodes) {
        out().println("node " + id + " " + files.member(id).cert());
      }
      out().println("tokens " + tokens.file() + " (node --tokens)");
      clientTokens.forEach((role, f) -> out().println("token " + role.label() + " " + f));
      return 0;
    } catch (IOException | IllegalArgumentException e) {
      err().println(spec.name() + ": " + e.getMessage());
      return e instanceof IllegalArgumentException ? ConfigNodeCli.EXIT_USAGE : EXIT_WRITE_FAILED;
    }
  }
}
