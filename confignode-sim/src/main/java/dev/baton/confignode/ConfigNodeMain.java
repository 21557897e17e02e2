package dev.baton.confignode;

import dev.baton.confignode.cli.ConfigNodeCli;

/** Entry point of the ConfigNode simulation jar; the commands are in {@link ConfigNodeCli}. */
public final class ConfigNodeMain {
  private ConfigNodeMain() {}

  public static void main(String[] args) {
    System.exit(ConfigNodeCli.run(args, System.out, System.err));
  }
}
