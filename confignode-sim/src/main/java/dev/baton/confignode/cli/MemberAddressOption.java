package dev.baton.confignode.cli;

import picocli.CommandLine.Option;

/** {@code --address HOST:PORT} of the commands that add a ConfigNode: its Raft address. */
final class MemberAddressOption {
  @Option(
      names = "--address",
      required = true,
      paramLabel = "HOST:PORT",
      description = "the new node's Raft address (its --peers entry)")
  String address;
}
