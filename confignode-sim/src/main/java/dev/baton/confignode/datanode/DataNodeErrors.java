package dev.baton.confignode.datanode;

import dev.baton.confignode.http.ErrorReply;
import dev.baton.confignode.http.HttpErrors;

/** The error codes of a DataNode's answers ({@link ErrorReply#error()}), with their status. */
public final class DataNodeErrors {
  /** 409: the command's term is below the highest term seen; it was recorded, not applied. */
  public static final String STALE_TERM = "stale_term";

  /**
   * 409: a later command of the same procedure was already applied here (see {@link
   * CommandContext#seq()}); this one was overtaken, recorded and not applied.
   */
  public static final String SUPERSEDED = "superseded";

  /** 409: a region with this id exists here for another database or kind. */
  public static final String REGION_CONFLICT = "region_conflict";

  /** 409: the command needs a region this DataNode does not host. */
  public static final String REGION_NOT_FOUND = "region_not_found";

  /** 409: the (procId, step) key was used before for a different command or arguments. */
  public static final String IDEMPOTENCY_CONFLICT = "idempotency_conflict";

  /** 503: a failure injected with {@code failNext}; nothing was applied. */
  public static final String INJECTED_FAILURE = "injected_failure";

  /** 503: the DataNode is shutting down; nothing was applied. */
  public static final String SHUTTING_DOWN = "shutting_down";

  /** 503: the DataNode could not persist its state and refuses commands until restarted. */
  public static final String STORAGE_FAILED = "storage_failed";

  /**
   * 403: the caller's certificate does not allow this route (a command from a certificate that
   * names no ConfigNode, fault control from one that names no admin); nothing was applied.
   */
  public static final String FORBIDDEN = HttpErrors.FORBIDDEN;

  /** 400: the body is not JSON. */
  public static final String MALFORMED_JSON = HttpErrors.MALFORMED_JSON;

  /** 400: the body is JSON but not a valid command (missing or unknown field, wrong type). */
  public static final String INVALID_REQUEST = HttpErrors.INVALID_REQUEST;

  /** 404: no such path. */
  public static final String NOT_FOUND = HttpErrors.NOT_FOUND;

  /** 405: the path exists but not for this method. */
  public static final String METHOD_NOT_ALLOWED = HttpErrors.METHOD_NOT_ALLOWED;

  /** 413: the body exceeds {@link DataNodeServer#MAX_BODY_BYTES}. */
  public static final String PAYLOAD_TOO_LARGE = HttpErrors.PAYLOAD_TOO_LARGE;

  /** 500: a bug in the DataNode; logged there with its stack trace. */
  public static final String INTERNAL = HttpErrors.INTERNAL;

  // Client-side codes of DataNodeException, for answers that never came.

  /** The DataNode could not be reached (connection refused or reset). */
  public static final String UNREACHABLE = "unreachable";

  /** No answer within the client's request timeout. */
  public static final String TIMEOUT = "timeout";

  /** An answer that is not the JSON the client expects. */
  public static final String BAD_RESPONSE = "bad_response";

  private DataNodeErrors() {}
}
