package dev.baton.consensus;

import java.util.concurrent.Executor;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallExecutorSupplier;

/**
 * Where a member's Raft server runs the calls it receives: a follower's request for a read index on
 * the transport thread that read it, every other call on gRPC's default executor.
 *
 * <p>A follower's linearizable read waits for the leader's answer to its read index request, and
 * each thread that request passes through on the leader is a wake-up that waits for a CPU on a busy
 * machine. On gRPC's default executor the leader's answer takes four: the transport thread hands
 * the call to the executor, Ratis hands it on to its server thread pool and waits for it there, and
 * the executor's reply goes back to the transport thread to be written. Run on the transport
 * thread, the call still passes through Ratis' server pool, but the reply is written where it was
 * read, with two wake-ups fewer. The call does no I/O and waits for nothing but that hand-off: a
 * leader with a lease answers at once, one without registers the read with its next heartbeat round
 * and answers later from the thread that completes it, and a member that does not lead refuses at
 * once. Log appends, votes and snapshots keep the executor: their handling can wait for the log.
 */
final class ReadIndexCalls implements ServerCallExecutorSupplier {
  private static final String READ_INDEX =
      RaftServerProtocolServiceGrpc.getReadIndexMethod().getFullMethodName();

  /** Runs a task on the calling thread. */
  private static final Executor TRANSPORT_THREAD = Runnable::run;

  @Override
  public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
    // null: the server's default executor
    return READ_INDEX.equals(call.getMethodDescriptor().getFullMethodName())
        ? TRANSPORT_THREAD
        : null;
  }
}
