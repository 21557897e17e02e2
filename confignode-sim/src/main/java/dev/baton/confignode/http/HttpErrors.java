package dev.baton.confignode.http;

/** Error codes every JSON HTTP endpoint of the simulation shares ({@link ErrorReply#error()}). */
public final class HttpErrors {
  /** 400: the body is not JSON. */
  public static final String MALFORMED_JSON = "malformed_json";

  /** 400: the body is JSON but not a valid request (missing or unknown field, wrong type). */
  public static final String INVALID_REQUEST = "invalid_request";

  /** 404: no such path or object. */
  public static final String NOT_FOUND = "not_found";

  /** 405: the path exists but not for this method. */
  public static final String METHOD_NOT_ALLOWED = "method_not_allowed";

  /** 413: the body exceeds the endpoint's limit. */
  public static final String PAYLOAD_TOO_LARGE = "payload_too_large";

  /** 500: a bug, reported without a stack trace. */
  public static final String INTERNAL = "internal";

  private HttpErrors() {}
}
