package dev.baton.confignode.cluster;

import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.confignode.hosts.NetnsHosts;
import dev.baton.consensus.spi.LoopbackPorts;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/** Every process on this host's loopback address, each service on a port chosen free. */
final class LoopbackPlacement implements HostPlacement {
  /** The address every process listens on. */
  static final String LOOPBACK = "127.0.0.1";

  @Override
  public String host(String name) {
    return LOOPBACK;
  }

  @Override
  public int port(Service service) throws IOException {
    return LoopbackPorts.free();
  }

  @Override
  public List<String> launcher(String name) {
    return List.of();
  }

  @Override
  public List<String> certificateHosts(String address) {
    return ClusterCertificates.LOOPBACK_HOSTS;
  }

  @Override
  public Optional<NetnsHosts> netns() {
    return Optional.empty();
  }

  @Override
  public ClusterHosts kind() {
    return ClusterHosts.LOOPBACK;
  }

  @Override
  public void close() {}
}
