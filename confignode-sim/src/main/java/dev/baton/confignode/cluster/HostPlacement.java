package dev.baton.confignode.cluster;

import dev.baton.confignode.hosts.NetnsHosts;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where each process of a {@link ProcessCluster} runs: the address of its host, the ports its
 * services listen on, how a command is started there and the hosts its certificate names.
 * Thread-safe.
 */
interface HostPlacement extends AutoCloseable {
  /** A service a process listens with. */
  enum Service {
    RAFT,
    ADMIN_API,
    DATANODE
  }

  /** The address of host {@code name} (a ConfigNode's id, or {@code dnN}), made at first use. */
  String host(String name);

  /** A port for {@code service} on a host. */
  int port(Service service) throws IOException;

  /** The command line prefix that starts a process on host {@code name} (empty: right here). */
  List<String> launcher(String name);

  /** The hosts a certificate of a process at {@code address} names. */
  List<String> certificateHosts(String address);

  /** The namespaces of the hosts, if they are such. */
  Optional<NetnsHosts> netns();

  /** Which kind. */
  ClusterHosts kind();

  /** Removes what was made for the hosts; their processes must be stopped first. */
  @Override
  void close();
}
