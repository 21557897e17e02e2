package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.LiveProcedureCapException;
import java.net.HttpURLConnection;
import java.util.concurrent.CompletableFuture;
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
      throw unavailable(
          "the cluster did not answer within "
              + ConfigNodeWaits.ADMIN_CLUSTER_CALL
              + " (no leader or no majority)");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof LiveProcedureCapException full) {
        throw new HttpError(
            HttpErrors.HTTP_TOO_MANY_REQUESTS, HttpErrors.TOO_MANY_PROCEDURES, full.getMessage());
      }
      if (cause instanceof IllegalArgumentException bad) {
        throw new HttpError(
            HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, bad.getMessage());
      }
      // a timeout of the cluster client carries no message; name it rather than say "null"
      String why =
          cause.getMessage() != null
              ? cause.getMessage()
              : cause instanceof TimeoutException
                  ? "no answer in time (no leader or no majority)"
                  : cause.getClass().getSimpleName();
      throw unavailable("the cluster could not serve the request: " + why);
    }
  }

  static HttpError unavailable(String message) {
    return new HttpError(HttpURLConnection.HTTP_UNAVAILABLE, UNAVAILABLE, message);
  }
}
