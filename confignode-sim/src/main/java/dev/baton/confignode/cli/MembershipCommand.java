package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.security.SecureRandom;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What the ConfigNode membership commands ({@code add-confignode}, {@code remove-confignode},
 * {@code replace-confignode}) share: each posts its change to {@code /api/membership/ACTION} (role
 * admin) with a random nonce (a retry on another node submits it once), prints the procedure's id,
 * and with {@code --wait} waits for it as {@code submit --wait} does.
 */
abstract class MembershipCommand extends ClientCommand {
  /** Nonce group of the membership commands; the nonce itself is random. */
  static final long MEMBERSHIP_NONCE_GROUP = 0x5ba7_0c12L;

  private static final SecureRandom RANDOM = new SecureRandom();

  @Bounds(min = 0, max = MAX_SECONDS)
  @Option(
      names = "--wait",
      paramLabel = "SECONDS",
      description = "wait this long for the change to finish (a new member's catch-up included)")
  Integer waitSeconds;

  @Mixin FormatOption format;

  @Mixin ClusterOptions cluster;

  /** The last segment of the change's path: add, remove or replace. */
  private final String action;

  MembershipCommand(String action) {
    this.action = action;
  }

  @Override
  ClusterOptions cluster() {
    return cluster;
  }

  /** The change's arguments, into {@code body}. */
  abstract void arguments(ObjectNode body);

  @Override
  int run(NodeApiClient api) throws IOException, InterruptedException {
    ObjectNode body = Json.LENIENT.createObjectNode();
    arguments(body);
    ObjectNode nonce = body.putObject("nonce");
    nonce.put("group", MEMBERSHIP_NONCE_GROUP);
    nonce.put("nonce", RANDOM.nextLong());
    long id =
        api.retrying(() -> api.post("/api/membership/" + action, body)).get("procId").asLong();
    out().println(id);
    if (waitSeconds == null) {
      return 0;
    }
    return ProcedureWait.await(api, id, waitSeconds, format.table(), spec.name(), out(), err());
  }
}
