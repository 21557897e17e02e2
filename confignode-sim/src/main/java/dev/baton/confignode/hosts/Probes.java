package dev.baton.confignode.hosts;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;

/**
 * Probe connections: a TCP connect from inside a host's namespace (bash's {@code /dev/tcp} under
 * {@code timeout}, run by {@code ip netns exec}) or from the test process, bounded by {@link
 * #BOUND}.
 */
final class Probes {
  /** How long a probe waits for an answer; a peer on the bridge answers within a millisecond. */
  static final Duration BOUND = Duration.ofSeconds(1);

  /** What {@code timeout} exits with when the command ran out of time. */
  static final int TIMEOUT_EXIT = 124;

  /** How much longer than its bound a probe command may take to start and stop. */
  static final Duration COMMAND_SLACK = Duration.ofSeconds(5);

  /** The port probes connect to: nothing listens there, so a reachable peer refuses. */
  static final int PORT = 9;

  private static final double MILLIS_PER_SECOND = 1000.0;

  private final HostCommands commands;

  Probes(HostCommands commands) {
    this.commands = commands;
  }

  /** A connect from the namespace {@code ns} to {@code address:port}. */
  Reach fromNamespace(String ns, String address, int port) {
    List<String> connect =
        List.of(
            "timeout",
            Double.toString(BOUND.toMillis() / MILLIS_PER_SECOND),
            "bash",
            "-c",
            "exec 3<>/dev/tcp/$0/$1",
            address,
            Integer.toString(port));
    HostCommands.Result r =
        HostCommands.run(commands.inNamespace(ns, connect), BOUND.plus(COMMAND_SLACK));
    if (r.timedOut() || r.exitCode() == TIMEOUT_EXIT) {
      return Reach.TIMED_OUT;
    }
    if (r.exitCode() == 0) {
      return Reach.CONNECTED;
    }
    if (r.output().contains("Connection refused")) {
      return Reach.REFUSED;
    }
    if (r.output().contains("/dev/tcp")) {
      return Reach.UNREACHABLE; // bash could not connect: no route, a blackhole, prohibited
    }
    throw new IllegalStateException(
        "probe from " + ns + " to " + address + ":" + port + " did not run: " + r.output());
  }

  /** A connect from the test process to {@code address:port}. */
  static Reach fromTestSide(String address, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(address, port), (int) BOUND.toMillis());
      return Reach.CONNECTED;
    } catch (SocketTimeoutException e) {
      return Reach.TIMED_OUT;
    } catch (NoRouteToHostException e) {
      return Reach.UNREACHABLE;
    } catch (ConnectException e) {
      return e.getMessage() != null && e.getMessage().contains("refused")
          ? Reach.REFUSED
          : Reach.UNREACHABLE;
    } catch (IOException e) {
      return Reach.UNREACHABLE;
    }
  }
}
