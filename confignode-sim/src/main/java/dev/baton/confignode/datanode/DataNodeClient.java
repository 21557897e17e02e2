package dev.baton.confignode.datanode;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.confignode.http.ErrorReply;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Talks to one simulated DataNode over HTTP or HTTPS: typed commands, its state, fault control.
 * Every method answers or throws a {@link DataNodeException} within the request timeout; none
 * retries (retrying is the caller's policy: see {@link DataNodeException#retryable()}).
 * Thread-safe; the clients a {@link DataNodeConnector} makes share its HTTP client.
 */
public final class DataNodeClient {
  /** Longest excerpt of an unexpected answer put in an exception message. */
  static final int EXCERPT_CHARS = 200;

  private static final String CONTENT_TYPE = "application/json";

  /** The scheme of a DataNode without TLS. */
  static final String PLAIN_SCHEME = "http";

  private final HttpClient http;
  private final String address;
  private final URI base;
  private final Duration requestTimeout;

  /**
   * A client of the DataNode at {@code host:port} over plain HTTP, with its own HTTP client (see
   * {@link DataNodeConnector} for HTTPS and for sharing one).
   */
  public DataNodeClient(String address) {
    this(newHttpClient(), PLAIN_SCHEME, address, ConfigNodeWaits.DATANODE_REQUEST_TIMEOUT);
  }

  /**
   * @param scheme {@code http}, or {@code https} when {@code http} is set up for the DataNode's TLS
   */
  DataNodeClient(HttpClient http, String scheme, String address, Duration requestTimeout) {
    this.http = http;
    this.address = address;
    this.base = baseUri(scheme, address);
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException("request timeout must be positive: " + requestTimeout);
    }
    this.requestTimeout = requestTimeout;
  }

  /**
   * An HTTP client suited to DataNodes (HTTP/1.1, connect timeout), to share among clients, for
   * plain HTTP.
   */
  public static HttpClient newHttpClient() {
    return builder().build();
  }

  /** The settings of {@link #newHttpClient()}, to add TLS to. */
  static HttpClient.Builder builder() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(ConfigNodeWaits.DATANODE_CONNECT_TIMEOUT);
  }

  /** host:port of the DataNode. */
  public String address() {
    return address;
  }

  public DataNodeReply ping(CommandContext ctx) throws DataNodeException, InterruptedException {
    return command(ctx, new DataNodeRequest.Ping(ctx.term(), ctx.procId(), ctx.step(), ctx.seq()));
  }

  /** Creates a follower replica. */
  public DataNodeReply createRegion(
      CommandContext ctx, int regionId, String database, RegionKind kind)
      throws DataNodeException, InterruptedException {
    return createRegion(ctx, regionId, database, kind, RegionRole.FOLLOWER);
  }

  public DataNodeReply createRegion(
      CommandContext ctx, int regionId, String database, RegionKind kind, RegionRole role)
      throws DataNodeException, InterruptedException {
    return command(
        ctx,
        new DataNodeRequest.CreateRegion(
            ctx.term(), ctx.procId(), ctx.step(), regionId, database, kind, role, ctx.seq()));
  }

  public DataNodeReply deleteRegion(CommandContext ctx, int regionId)
      throws DataNodeException, InterruptedException {
    return command(
        ctx,
        new DataNodeRequest.DeleteRegion(
            ctx.term(), ctx.procId(), ctx.step(), regionId, ctx.seq()));
  }

  public DataNodeReply setRegionRole(CommandContext ctx, int regionId, RegionRole role)
      throws DataNodeException, InterruptedException {
    return command(
        ctx,
        new DataNodeRequest.SetRegionRole(
            ctx.term(), ctx.procId(), ctx.step(), regionId, role, ctx.seq()));
  }

  public DataNodeReply syncRegion(CommandContext ctx, int regionId, long dataVersion)
      throws DataNodeException, InterruptedException {
    return command(
        ctx,
        new DataNodeRequest.SyncRegion(
            ctx.term(), ctx.procId(), ctx.step(), regionId, dataVersion, ctx.seq()));
  }

  public DataNodeReply invalidateCache(CommandContext ctx, String database)
      throws DataNodeException, InterruptedException {
    return command(
        ctx,
        new DataNodeRequest.InvalidateCache(
            ctx.term(), ctx.procId(), ctx.step(), database, ctx.seq()));
  }

  public DataNodeState state() throws DataNodeException, InterruptedException {
    return send(
        HttpRequest.newBuilder(base.resolve(DataNodeServer.STATE_PATH)).GET(),
        DataNodeServer.STATE_PATH,
        DataNodeState.class);
  }

  /** Changes the injected faults; fields left null keep their value. */
  public FaultState injectFaults(FaultSettings settings)
      throws DataNodeException, InterruptedException {
    return post(DataNodeServer.FAULTS_PATH, settings, FaultState.class);
  }

  /** The next {@code n} commands fail with 503 without being applied. */
  public FaultState failNext(int n) throws DataNodeException, InterruptedException {
    return injectFaults(FaultSettings.failNextCommands(n));
  }

  /** Every command is delayed by {@code latency}. */
  public FaultState addLatency(Duration latency) throws DataNodeException, InterruptedException {
    return injectFaults(FaultSettings.addLatency(latency.toMillis()));
  }

  /** Commands block until {@link #releaseStall()}. */
  public FaultState stall() throws DataNodeException, InterruptedException {
    return injectFaults(FaultSettings.stallCommands());
  }

  /** Only commands of step key {@code step} block until {@link #releaseStall()}. */
  public FaultState stallStep(String step) throws DataNodeException, InterruptedException {
    return injectFaults(FaultSettings.stallStep(step));
  }

  public FaultState releaseStall() throws DataNodeException, InterruptedException {
    return post(DataNodeServer.FAULTS_RELEASE_PATH, null, FaultState.class);
  }

  /** Clears every fault and releases stalled commands. */
  public FaultState resetFaults() throws DataNodeException, InterruptedException {
    return post(DataNodeServer.FAULTS_RESET_PATH, null, FaultState.class);
  }

  /** Sends a command; its context's observer is told when it starts and how it ended. */
  private DataNodeReply command(CommandContext ctx, DataNodeRequest request)
      throws DataNodeException, InterruptedException {
    CommandType type = CommandType.of(request);
    ctx.observer().started(address, type.commandName() + " " + ctx.step());
    DataNodeReply reply;
    try {
      reply = post(type.path(), request, DataNodeReply.class);
    } catch (DataNodeException e) {
      ctx.observer().failed(e.getMessage());
      throw e;
    }
    ctx.observer().answered();
    return reply;
  }

  private <T> T post(String path, Object body, Class<T> answer)
      throws DataNodeException, InterruptedException {
    byte[] bytes;
    try {
      bytes = body == null ? new byte[0] : Json.STRICT.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot encode " + body + " as JSON", e);
    }
    return send(
        HttpRequest.newBuilder(base.resolve(path))
            .header("Content-Type", CONTENT_TYPE)
            .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)),
        path,
        answer);
  }

  private <T> T send(HttpRequest.Builder builder, String path, Class<T> answer)
      throws DataNodeException, InterruptedException {
    HttpRequest request = builder.timeout(requestTimeout).build();
    HttpResponse<byte[]> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (HttpConnectTimeoutException | ConnectException e) {
      throw noAnswer(path, DataNodeErrors.UNREACHABLE, "cannot connect: " + e, e);
    } catch (HttpTimeoutException e) {
      throw noAnswer(
          path, DataNodeErrors.TIMEOUT, "no answer within " + requestTimeout + ": " + e, e);
    } catch (IOException e) {
      throw noAnswer(path, DataNodeErrors.UNREACHABLE, "connection failed: " + e, e);
    }
    int status = response.statusCode();
    byte[] body = response.body();
    if (status / 100 != 2) {
      ErrorReply error = errorOf(body);
      throw new DataNodeException(
          address,
          path,
          status,
          error == null ? DataNodeErrors.BAD_RESPONSE : error.error(),
          error == null ? "unexpected answer: " + printable(body) : error.message(),
          null);
    }
    try {
      return Json.LENIENT.readValue(body, answer);
    } catch (IOException e) {
      throw new DataNodeException(
          address,
          path,
          status,
          DataNodeErrors.BAD_RESPONSE,
          "cannot read the answer as " + answer.getSimpleName() + ": " + e.getMessage(),
          e);
    }
  }

  private DataNodeException noAnswer(String path, String error, String message, Throwable e) {
    return new DataNodeException(address, path, DataNodeException.NO_STATUS, error, message, e);
  }

  private static ErrorReply errorOf(byte[] body) {
    try {
      ErrorReply reply = Json.LENIENT.readValue(body, ErrorReply.class);
      return reply == null || reply.error() == null ? null : reply;
    } catch (IOException e) {
      return null;
    }
  }

  private static String printable(byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8);
    return text.length() <= EXCERPT_CHARS ? text : text.substring(0, EXCERPT_CHARS) + "...";
  }

  private static URI baseUri(String scheme, String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IllegalArgumentException(
          "DataNode address must be host:port, got '" + address + "'");
    }
    try {
      int port = Integer.parseInt(address.substring(colon + 1));
      if (port < 1 || port > DataNodeConfig.MAX_PORT) {
        throw new NumberFormatException("out of range");
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "DataNode address must be host:port with a port in 1.."
              + DataNodeConfig.MAX_PORT
              + ", got '"
              + address
              + "'");
    }
    return URI.create(scheme + "://" + address);
  }
}
