package dev.baton.consensus;

import java.util.concurrent.Executor;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.com.google.common.util.concurrent.MoreExecutors;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallExecutorSupplier;

/**
 * Chooses where a member's Raft port runs each call: a follower's read index request on the
 * transport thread that read it, every other call on gRPC's default executor.
 *
 * <p>A read index request is the round trip each linearizable read on a follower waits for, and the
 * leader answers it without blocking: from its lease at once, or by registering the request to be
 * answered by the next heartbeat round (Ratis' {@code LeaderStateImpl#getReadIndex}); it reads no
 * disk and takes no lock held across I/O. Handing it to the default executor adds a thread hand-off
 * each way to a call that takes microseconds. Every other call (appends that write the log, votes,
 * snapshots, client and admin calls) may block and stays off the transport threads.
 */
final class ReadIndexCallExecutor implements ServerCallExecutorSupplier {
  private static final String READ_INDEX =
      RaftServerProtocolServiceGrpc.getReadIndexMethod().getFullMethodName();

  @Override
  public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
    return READ_INDEX.equals(call.getMethodDescriptor().getFullMethodName())
        ? MoreExecutors.directExecutor()
        : null;
  }
}
