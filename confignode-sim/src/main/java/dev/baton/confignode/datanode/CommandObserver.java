package dev.baton.confignode.datanode;

/**
 * Told by a {@link DataNodeClient} about each command it sends with a {@link CommandContext} that
 * carries it: the command starts, then answers or fails. The ConfigNode uses it to show which
 * DataNode call a procedure waits on. Called on the sending thread; must not block.
 */
public interface CommandObserver {
  /** Observes nothing. */
  CommandObserver NONE =
      new CommandObserver() {
        @Override
        public void started(String address, String command) {}

        @Override
        public void answered() {}

        @Override
        public void failed(String error) {}
      };

  /**
   * A command is sent to the DataNode at {@code address}; {@code command} names it and its step,
   * e.g. {@code "sync_region CATCH_UP"}.
   */
  void started(String address, String command);

  /** The DataNode answered with success. */
  void answered();

  /** The command failed: refused, an error answer, or no answer in time. */
  void failed(String error);
}
