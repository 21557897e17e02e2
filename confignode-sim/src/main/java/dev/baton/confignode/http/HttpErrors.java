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

  /** 415: a POST whose Content-Type is not application/json. */
  public static final String UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type";

  /** 403: the Host header names no name this server answers to. */
  public static final String WRONG_HOST = "wrong_host";

  /** 403: the caller is known but may not do this. */
  public static final String FORBIDDEN = "forbidden";

  /** 500: a bug, reported without a stack trace. */
  public static final String INTERNAL = "internal";

  /** The cluster holds as many unfinished procedures as its cap allows (429). */
  public static final String TOO_MANY_PROCEDURES = "too_many_procedures";

  /** HTTP's Too Many Requests, which {@code HttpURLConnection} has no constant for. */
  public static final int HTTP_TOO_MANY_REQUESTS = 429;

  private HttpErrors() {}

  /**
   * A reference for an unexpected failure: logged with the failure, and the only thing about it the
   * client is told (an exception's text may name files, classes or data the client must not see).
   */
  public static String newReference() {
    return Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());
  }

  /** The message of a 500 reply: no detail, the reference to find it in the node's log. */
  public static String internalMessage(String reference) {
    return "internal error; the node's log has the details under reference " + reference;
  }
}
