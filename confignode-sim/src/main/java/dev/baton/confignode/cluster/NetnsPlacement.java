package dev.baton.confignode.cluster;

import dev.baton.confignode.hosts.NetnsHosts;
import java.util.List;
import java.util.Optional;

/**
 * Every process on a host of its own ({@link NetnsHosts}), reached at its host's address; each host
 * has its own address, so a service listens on the same port on every host.
 */
final class NetnsPlacement implements HostPlacement {
  /** The Raft port of every ConfigNode. */
  static final int RAFT_PORT = 9001;

  /** The admin API port of every ConfigNode. */
  static final int ADMIN_API_PORT = 8081;

  /** The port of every DataNode. */
  static final int DATANODE_PORT = 7001;

  private final NetnsHosts hosts;

  NetnsPlacement(NetnsHosts hosts) {
    this.hosts = hosts;
  }

  @Override
  public synchronized String host(String name) {
    return hosts.hosts().contains(name) ? hosts.address(name) : hosts.addHost(name);
  }

  @Override
  public int port(Service service) {
    return switch (service) {
      case RAFT -> RAFT_PORT;
      case ADMIN_API -> ADMIN_API_PORT;
      case DATANODE -> DATANODE_PORT;
    };
  }

  @Override
  public List<String> launcher(String name) {
    return hosts.launcher(name);
  }

  @Override
  public List<String> certificateHosts(String address) {
    return List.of(address);
  }

  @Override
  public Optional<NetnsHosts> netns() {
    return Optional.of(hosts);
  }

  @Override
  public ClusterHosts kind() {
    return ClusterHosts.NETNS;
  }

  @Override
  public void close() {
    hosts.close();
  }
}
