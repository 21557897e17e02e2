package dev.baton.confignode.cli;

import dev.baton.confignode.datanode.DataNodeConfig;
import dev.baton.confignode.datanode.DataNodeServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code confignode-sim datanode --id ID --port PORT --data-dir DIR}: runs a simulated DataNode
 * until the process is stopped (SIGTERM / Ctrl-C). Once listening it prints one line, {@code
 * datanode ID listening on 127.0.0.1:PORT data-dir DIR}, so a launcher that passed port 0 can read
 * the port.
 */
final class DataNodeCommand {
  static final String NAME = "datanode";

  /** Exit code when the DataNode cannot start (port taken, data directory unusable). */
  static final int EXIT_START_FAILED = 1;

  /** How long the shutdown hook waits for the DataNode to close its files. */
  static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(10);

  static final String ID = "id";
  static final String PORT = "port";
  static final String DATA_DIR = "data-dir";

  static final List<CommandLineFlags.Flag> FLAGS =
      List.of(
          new CommandLineFlags.Flag(ID, "ID", "DataNode id, an integer >= 0", true),
          new CommandLineFlags.Flag(
              PORT, "PORT", "HTTP port on 127.0.0.1; 0 picks a free one", true),
          new CommandLineFlags.Flag(
              DATA_DIR, "DIR", "directory of the DataNode's durable state", true));

  private DataNodeCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (CommandLineFlags.wantsHelp(args)) {
      out.println(usage());
      return 0;
    }
    DataNodeConfig config;
    try {
      config = parse(args);
    } catch (UsageException e) {
      err.println(NAME + ": " + e.getMessage());
      err.println(usage());
      return ConfigNodeCli.EXIT_USAGE;
    }
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stop.countDown();
                  try {
                    stopped.await(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "datanode-shutdown"));
    return serve(config, out, err, stop, stopped);
  }

  static DataNodeConfig parse(String[] args) throws UsageException {
    CommandLineFlags flags = CommandLineFlags.parse(NAME, FLAGS, args);
    int id = flags.intValue(ID, 0, Integer.MAX_VALUE);
    int port = flags.intValue(PORT, 0, DataNodeConfig.MAX_PORT);
    Path dir;
    try {
      dir = Path.of(flags.string(DATA_DIR));
    } catch (InvalidPathException e) {
      throw new UsageException("flag --" + DATA_DIR + " is not a valid path: " + e.getMessage());
    }
    return DataNodeConfig.of(id, dir).withPort(port);
  }

  /** Runs the DataNode until {@code stop} opens; opens {@code stopped} once it is closed. */
  static int serve(
      DataNodeConfig config,
      PrintStream out,
      PrintStream err,
      CountDownLatch stop,
      CountDownLatch stopped) {
    try (DataNodeServer server = new DataNodeServer(config).start()) {
      out.println(
          NAME
              + " "
              + config.id()
              + " listening on "
              + server.address()
              + " data-dir "
              + config.dataDir().toAbsolutePath());
      out.flush();
      stop.await();
      return 0;
    } catch (IOException e) {
      err.println(NAME + ": DataNode " + config.id() + " cannot start: " + e.getMessage());
      return EXIT_START_FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    } finally {
      stopped.countDown();
    }
  }

  static String usage() {
    return "usage: confignode-sim "
        + NAME
        + " --id ID --port PORT --data-dir DIR"
        + System.lineSeparator()
        + CommandLineFlags.describe(FLAGS);
  }
}
