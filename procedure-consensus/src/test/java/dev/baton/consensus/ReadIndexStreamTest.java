package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.proto.ReadIndexReply;
import dev.baton.consensus.proto.ReadIndexRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.Server;
import org.apache.ratis.thirdparty.io.grpc.ServerServiceDefinition;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.ServerCalls;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member's stream of read index requests against a real gRPC server on loopback whose answers the
 * test gives: answers matched to requests by number in any order, an error answer failing only its
 * request, the stream's end failing every waiting and later request, a timeout failing one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadIndexStreamTest {
  /** Long enough never to pass in a test that answers. */
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  /** Short enough to pass in a test that does not answer. */
  private static final Duration IMPATIENCE = Duration.ofMillis(200);

  private final BlockingQueue<ReadIndexRequest> asked = new LinkedBlockingQueue<>();
  private final CompletableFuture<StreamObserver<ReadIndexReply>> answers =
      new CompletableFuture<>();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws IOException {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .directExecutor()
            .addService(
                ServerServiceDefinition.builder(ReadIndexService.SERVICE_NAME)
                    .addMethod(
                        ReadIndexService.READ_INDEX,
                        ServerCalls.asyncBidiStreamingCall(
                            out -> {
                              answers.complete(out);
                              return new StreamObserver<>() {
                                @Override
                                public void onNext(ReadIndexRequest request) {
                                  asked.add(request);
                                }

                                @Override
                                public void onError(Throwable t) {}

                                @Override
                                public void onCompleted() {}
                              };
                            }))
                    .build())
            .build()
            .start();
    channel = RaftSecurity.plaintext().channelTo("127.0.0.1:" + server.getPort());
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  @Test
  void answersInAnyOrderReachTheirOwnRequests() throws Exception {
    try (ReadIndexStream stream = new ReadIndexStream(channel)) {
      List<CompletableFuture<Long>> reads =
          List.of(ask(stream, "a"), ask(stream, "b"), ask(stream, "c"));
      List<ReadIndexRequest> requests = List.of(next(), next(), next());
      StreamObserver<ReadIndexReply> out = answers.get(30, TimeUnit.SECONDS);
      // answered last to first, each with an index naming its asker
      for (int i = requests.size() - 1; i >= 0; i--) {
        ReadIndexRequest r = requests.get(i);
        out.onNext(reply(r).setIndex(indexFor(r.getRequestor())).build());
      }
      assertEquals(indexFor("a"), reads.get(0).get(30, TimeUnit.SECONDS));
      assertEquals(indexFor("b"), reads.get(1).get(30, TimeUnit.SECONDS));
      assertEquals(indexFor("c"), reads.get(2).get(30, TimeUnit.SECONDS));
      assertEquals(0, stream.waiting());
    }
  }

  @Test
  void anErrorAnswerFailsItsRequestOnly() throws Exception {
    try (ReadIndexStream stream = new ReadIndexStream(channel)) {
      CompletableFuture<Long> refused = ask(stream, "a");
      StreamObserver<ReadIndexReply> out = answers.get(30, TimeUnit.SECONDS);
      out.onNext(reply(next()).setError("node x has no read index: not the leader").build());
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> refused.get(30, TimeUnit.SECONDS));
      assertInstanceOf(IOException.class, e.getCause());
      assertTrue(e.getCause().getMessage().contains("not the leader"), e.getCause().getMessage());
      assertFalse(stream.broken());
      CompletableFuture<Long> next = ask(stream, "b");
      out.onNext(reply(next()).setIndex(indexFor("b")).build());
      assertEquals(indexFor("b"), next.get(30, TimeUnit.SECONDS));
    }
  }

  @Test
  void theStreamsEndFailsWaitingAndLaterRequests() throws Exception {
    try (ReadIndexStream stream = new ReadIndexStream(channel)) {
      CompletableFuture<Long> waiting = ask(stream, "a");
      next();
      answers.get(30, TimeUnit.SECONDS).onError(Status.UNAVAILABLE.asException());
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> waiting.get(30, TimeUnit.SECONDS));
      assertTrue(e.getCause().getMessage().contains("UNAVAILABLE"), e.getCause().getMessage());
      assertTrue(stream.broken());
      CompletableFuture<Long> later = ask(stream, "b");
      assertTrue(later.isCompletedExceptionally(), "a request on an ended stream waits");
      assertEquals(0, stream.waiting());
    }
  }

  @Test
  void anUnansweredRequestTimesOutAlone() throws Exception {
    try (ReadIndexStream stream = new ReadIndexStream(channel)) {
      CompletableFuture<Long> unanswered = stream.ask(request("a"), IMPATIENCE);
      next();
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> unanswered.get(30, TimeUnit.SECONDS));
      assertInstanceOf(TimeoutException.class, e.getCause());
      assertEquals(0, stream.waiting());
      assertFalse(stream.broken());
      CompletableFuture<Long> answered = ask(stream, "b");
      answers.get(30, TimeUnit.SECONDS).onNext(reply(next()).setIndex(indexFor("b")).build());
      assertEquals(indexFor("b"), answered.get(30, TimeUnit.SECONDS));
    }
  }

  private static CompletableFuture<Long> ask(ReadIndexStream stream, String requestor) {
    return stream.ask(request(requestor), PATIENCE);
  }

  private static ReadIndexRequest.Builder request(String requestor) {
    return ReadIndexRequest.newBuilder().setRequestor(requestor);
  }

  private static ReadIndexReply.Builder reply(ReadIndexRequest request) {
    return ReadIndexReply.newBuilder().setId(request.getId());
  }

  /** A distinct index for each asker. */
  private static long indexFor(String requestor) {
    return 100L + requestor.charAt(0);
  }

  private ReadIndexRequest next() throws InterruptedException {
    ReadIndexRequest r = asked.poll(30, TimeUnit.SECONDS);
    assertTrue(r != null, "the server got no request");
    return r;
  }
}
