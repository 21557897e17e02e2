package dev.baton.confignode.http;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * What a server does with each request: an answer for every call, errors included (a service turns
 * its failures into JSON errors itself). Runs on a thread of the server's bounded pool and may
 * block (waiting for the cluster, a stalled DataNode command).
 */
@FunctionalInterface
public interface HttpService {
  HttpReply serve(HttpCall call);

  /**
   * The answer, possibly later: a service that waits for an event (a long poll) returns a stage
   * that completes then, and holds no thread meanwhile. The call stays usable until the stage
   * completes. By default, {@link #serve}'s answer at once.
   */
  default CompletionStage<HttpReply> serveAsync(HttpCall call) {
    return CompletableFuture.completedFuture(serve(call));
  }

  /**
   * A service whose answers may come later ({@link #serveAsync}); {@link #serve} waits for them.
   */
  static HttpService async(Function<HttpCall, CompletionStage<HttpReply>> service) {
    return new HttpService() {
      @Override
      public HttpReply serve(HttpCall call) {
        return service.apply(call).toCompletableFuture().join();
      }

      @Override
      public CompletionStage<HttpReply> serveAsync(HttpCall call) {
        return service.apply(call);
      }
    };
  }
}
