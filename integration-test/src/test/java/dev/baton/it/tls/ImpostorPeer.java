package dev.baton.it.tls;

import dev.baton.certs.IssuedCertificate;
import dev.baton.consensus.ProcedureNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

/**
 * A bare Ratis server that joins a cluster's group as {@code id} with whatever certificate it is
 * given, trusting the given CA and nothing else: what someone holding a certificate of the cluster
 * (or of another CA) runs without Baton's checks on its own side.
 */
final class ImpostorPeer implements AutoCloseable {
  private final RaftServer server;
  private final RaftGroupId groupId;

  ImpostorPeer(
      String id,
      Map<String, InetSocketAddress> peers,
      IssuedCertificate certificate,
      X509Certificate trusted,
      Path storage)
      throws IOException {
    List<RaftPeer> members = new ArrayList<>();
    peers.forEach(
        (peerId, a) ->
            members.add(
                RaftPeer.newBuilder()
                    .setId(peerId)
                    .setAddress(a.getHostString() + ":" + a.getPort())
                    .build()));
    groupId = RaftGroupId.valueOf(ProcedureNode.raftGroupId(ProcedureNode.DEFAULT_CLUSTER_ID));
    RaftProperties props = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(props, List.of(storage.toFile()));
    GrpcConfigKeys.Server.setHost(props, peers.get(id).getHostString());
    GrpcConfigKeys.Server.setPort(props, peers.get(id).getPort());
    Parameters parameters = new Parameters();
    GrpcConfigKeys.TLS.setConf(
        parameters,
        new GrpcTlsConfig(
            certificate.privateKey(), certificate.certificate(), List.of(trusted), true));
    server =
        RaftServer.newBuilder()
            .setServerId(RaftPeerId.valueOf(id))
            .setGroup(RaftGroup.valueOf(groupId, members))
            .setProperties(props)
            .setParameters(parameters)
            .setStateMachine(new BaseStateMachine())
            .setOption(RaftStorage.StartupOption.FORMAT)
            .build();
    server.start();
  }

  private RaftServer.Division division() throws IOException {
    return server.getDivision(groupId);
  }

  boolean isLeader() throws IOException {
    return division().getInfo().isLeader();
  }

  /** Whether its Raft log holds no entry: nothing was ever replicated to it. */
  boolean logIsEmpty() throws IOException {
    return division().getRaftLog().getLastEntryTermIndex() == null;
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
