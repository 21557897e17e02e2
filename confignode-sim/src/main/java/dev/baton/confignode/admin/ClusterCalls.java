package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.LiveProcedureCapException;
import dev.baton.consensus.ProcedureNode;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** How the admin API waits for the cluster: bounded, with failures turned into JSON errors. */
public final class ClusterCalls {
  static final String UNAVAILABLE = "unavailable";

  private ClusterCalls() {}

  /** Waits for the cluster; a timeout or a failure becomes a 503 with the reason. */
  static <T> T await(CompletableFuture<T> f) throws HttpError, InterruptedException {
    try {
      return f.get(ConfigNodeWaits.ADMIN_CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw noAnswer(ConfigNodeWaits.ADMIN_CLUSTER_CALL);
    } catch (ExecutionException e) {
      throw failure(e.getCause());
    }
  }

  /**
   * As {@link #await}, without waiting: {@code f} failing, or not done within {@code patience},
   * fails the returned stage with the {@link HttpError} {@link #await} would throw.
   */
  static <T> CompletableFuture<T> later(CompletableFuture<T> f, Duration patience) {
    return f.orTimeout(patience.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            e -> {
              Throwable cause =
                  e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
              return CompletableFuture.failedFuture(
                  cause instanceof TimeoutException ? noAnswer(patience) : failure(cause));
            });
  }

  private static HttpError noAnswer(Duration patience) {
    return unavailable(
        "the cluster did not answer within " + patience + " (no leader or no majority)");
  }

  /** The error a failed call to the cluster answers. */
  static HttpError failure(Throwable cause) {
    if (cause instanceof HttpError already) {
      return already;
    }
    if (cause instanceof LiveProcedureCapException full) {
      return new HttpError(
          HttpErrors.HTTP_TOO_MANY_REQUESTS, HttpErrors.TOO_MANY_PROCEDURES, full.getMessage());
    }
    if (cause instanceof IllegalArgumentException bad) {
      return new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, bad.getMessage());
    }
    // a timeout of the cluster client carries no message; name it rather than say "null"
    String why =
        cause.getMessage() != null
            ? cause.getMessage()
            : cause instanceof TimeoutException
                ? "no answer in time (no leader or no majority)"
                : cause.getClass().getSimpleName();
    return unavailable("the cluster could not serve the request: " + why);
  }

  static HttpError unavailable(String message) {
    return new HttpError(HttpURLConnection.HTTP_UNAVAILABLE, UNAVAILABLE, message);
  }

  /** A 404 unless {@code node} knows procedure {@code id} (read linearizably). */
  static void requireKnown(ProcedureNode<?> node, long id) throws HttpError, InterruptedException {
    if (await(node.getInfo(id)).isEmpty()) {
      throw new HttpError(
          HttpURLConnection.HTTP_NOT_FOUND, HttpErrors.NOT_FOUND, "no procedure " + id);
    }
  }
}
