package dev.baton.confignode.cli;

import dev.baton.confignode.datanode.DataNodeConfig;
import dev.baton.confignode.datanode.DataNodeGuard;
import dev.baton.confignode.datanode.DataNodeServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code confignode-sim datanode --id ID --port PORT --data-dir DIR [--bind HOST] [--tls-cert PEM
 * --tls-key PEM --tls-ca PEM] [--insecure] [--faults]}: runs a simulated DataNode until the process
 * is stopped (SIGTERM / Ctrl-C); with the TLS flags it serves HTTPS only, to callers with a
 * certificate of the CA ({@link DataNodeGuard} says who may call what). Once listening it prints
 * one line, {@code datanode ID listening on HOST:PORT data-dir DIR}, so a launcher that passed port
 * 0 can read the port.
 */
@Command(
    name = DataNodeCommand.NAME,
    description = {
      "Runs a simulated DataNode until the process is stopped.",
      "Once listening it prints 'datanode ID listening on HOST:PORT data-dir DIR', so a"
          + " launcher that passed --port 0 can read the port."
    },
    exitCodeList = {"0:stopped", "1:could not start", "2:bad flags"})
final class DataNodeCommand extends CliCommand {
  static final String NAME = "datanode";

  /** Exit code when the DataNode cannot start (port taken, data directory unusable). */
  static final int EXIT_START_FAILED = 1;

  /** How long the shutdown hook waits for the DataNode to close its files. */
  static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(10);

  @Bounds(min = 0, max = Integer.MAX_VALUE)
  @Option(
      names = "--id",
      required = true,
      paramLabel = "ID",
      description = "DataNode id, an integer >= 0")
  Integer id;

  @Bounds(min = 0, max = DataNodeConfig.MAX_PORT)
  @Option(
      names = "--port",
      required = true,
      paramLabel = "PORT",
      description = "HTTP port; 0 picks a free one")
  Integer port;

  @Option(
      names = "--bind",
      paramLabel = "HOST",
      description =
          "address the DataNode listens on (0.0.0.0: every interface); a non-loopback address"
              + " needs --tls-* or --insecure")
  String bind = DataNodeConfig.DEFAULT_BIND;

  @Mixin TlsFlags tls;

  @Option(
      names = "--faults",
      arity = "0",
      description =
          "enable the fault routes (/faults...: fail, delay or stall commands; with TLS for an"
              + " admin client's certificate only); for drills and tests only")
  boolean faults;

  @Option(
      names = "--data-dir",
      required = true,
      paramLabel = "DIR",
      description = "directory of the DataNode's durable state")
  Path dataDir;

  @Override
  public Integer call() {
    DataNodeConfig config = config();
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
    return serve(config, out(), err(), stop, stopped);
  }

  /**
   * The DataNode's configuration from the flags: the TLS files go together, and a non-loopback bind
   * needs TLS or {@code --insecure}.
   */
  DataNodeConfig config() {
    DataNodeGuard guard;
    try {
      guard = new DataNodeGuard(tls.settings(), tls.insecure, faults);
      guard.checkBind(id, bind);
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
    return DataNodeConfig.of(id, dataDir).withPort(port).withBindHost(bind).withGuard(guard);
  }

  /**
   * The configuration of {@code datanode ARGS} (the arguments after the command name), checked as
   * the command line checks it; a usage error is thrown with the message the command line prints.
   */
  static DataNodeConfig parse(String[] args) {
    CommandLine line = new CommandLine(new DataNodeCommand());
    try {
      UsageErrors.check(line.parseArgs(args));
    } catch (ParameterException e) {
      throw new ParameterException(line, UsageErrors.message(e, args), e, null, "");
    }
    return ((DataNodeCommand) line.getCommand()).config();
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
}
