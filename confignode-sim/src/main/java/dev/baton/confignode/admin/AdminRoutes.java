package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import java.io.IOException;
import java.util.Optional;

/**
 * A group of admin API endpoints. {@link AdminServer} asks each group in turn; the first that
 * claims the path answers. A new group of endpoints is one more entry in {@link AdminServer}'s
 * route list.
 */
interface AdminRoutes {
  /**
   * The JSON answer (serialized with Jackson) if this group serves the request's path, empty if the
   * path is not one of this group's. An answer that comes later (a long poll) is a {@link
   * java.util.concurrent.CompletionStage} of it, failed with an {@link HttpError} for an error
   * answer; the request holds no thread meanwhile.
   *
   * @throws HttpError for bad input or an unavailable cluster (the path is this group's)
   */
  Optional<Object> route(AdminRequest request) throws HttpError, IOException, InterruptedException;
}
