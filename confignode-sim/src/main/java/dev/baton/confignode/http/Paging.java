package dev.baton.confignode.http;

/**
 * How list endpoints page: {@code ?limit=N&after=ID} gives at most N items with ids above ID, in id
 * order; when more remain, the reply's {@link #NEXT_AFTER_HEADER} header holds the {@code after} of
 * the next page.
 */
public final class Paging {
  /** Items in one page when the request names no {@code limit}. */
  public static final int DEFAULT_PAGE = 100;

  /** The most items one page may hold. */
  public static final int MAX_PAGE = 10_000;

  /** The reply header that holds the {@code after} of the next page, when there is one. */
  public static final String NEXT_AFTER_HEADER = "X-Next-After";

  private Paging() {}
}
