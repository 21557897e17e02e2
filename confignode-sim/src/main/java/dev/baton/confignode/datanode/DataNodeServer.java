package dev.baton.confignode.datanode;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.baton.confignode.http.ErrorReply;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.http.LoopbackHttpServer;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated DataNode: a durable region table driven by ConfigNode commands over HTTP on
 * 127.0.0.1, with term fencing, an idempotency ledger and fault injection. Runs in its own process
 * ({@code confignode-sim datanode}) or in-process for tests: {@link #start()}, {@link #port()},
 * {@link #close()}; a new server on the same data directory recovers everything.
 *
 * <p>Commands are applied one at a time: decided by {@link DataNodeCore}, persisted (fsynced)
 * through {@link DataNodeJournal}, applied, then answered. Reads of {@code /state} and fault
 * control never wait for a stalled command. If the journal cannot be written the DataNode refuses
 * every further command ({@value DataNodeErrors#STORAGE_FAILED}) until restarted.
 */
public final class DataNodeServer implements AutoCloseable {
  /** Largest request body accepted; larger ones get 413. */
  public static final int MAX_BODY_BYTES = 1 << 20;

  /** Pending connections the listener queues before refusing. */
  static final int BACKLOG = 64;

  static final String STATE_PATH = "/state";
  static final String FAULTS_PATH = "/faults";
  static final String FAULTS_RELEASE_PATH = "/faults/release";
  static final String FAULTS_RESET_PATH = "/faults/reset";

  private static final Logger LOG = LoggerFactory.getLogger(DataNodeServer.class);
  private static final String GET = "GET";
  private static final String POST = "POST";

  private interface Handler {
    Object handle(HttpExchange exchange) throws HttpError, IOException, InterruptedException;
  }

  private record Route(String method, Handler handler) {}

  private final DataNodeConfig config;
  private final LongSupplier clock;
  private final FaultInjector faults = new FaultInjector();
  private final Map<String, Route> routes = new LinkedHashMap<>();
  private final Object commandLock = new Object();

  private HttpServer http;
  private ExecutorService executor;
  private DataNodeJournal journal;
  private DataNodeCore core;
  private boolean storageFailed;
  private volatile boolean closed;

  public DataNodeServer(DataNodeConfig config) {
    this(config, System::currentTimeMillis);
  }

  DataNodeServer(DataNodeConfig config, LongSupplier clock) {
    this.config = config;
    this.clock = clock;
    for (CommandType type : CommandType.values()) {
      routes.put(type.path(), new Route(POST, exchange -> command(type, exchange)));
    }
    routes.put(STATE_PATH, new Route(GET, exchange -> state()));
    routes.put(FAULTS_PATH, new Route(POST, this::configureFaults));
    routes.put(FAULTS_RELEASE_PATH, new Route(POST, exchange -> controlFaults(exchange, false)));
    routes.put(FAULTS_RESET_PATH, new Route(POST, exchange -> controlFaults(exchange, true)));
  }

  /** Recovers the data directory and starts answering; returns this. */
  public synchronized DataNodeServer start() throws IOException {
    if (http != null) {
      throw new IllegalStateException("DataNode " + config.id() + " is already started");
    }
    journal = DataNodeJournal.open(config);
    core = journal.recovered();
    try {
      http = LoopbackHttpServer.create(config.port(), BACKLOG);
    } catch (IOException e) {
      journal.close();
      throw new IOException(
          "DataNode " + config.id() + " cannot listen on 127.0.0.1:" + config.port() + ": " + e, e);
    }
    executor = Executors.newCachedThreadPool(threadFactory(config.id()));
    http.setExecutor(executor);
    http.createContext("/", this::dispatch);
    http.start();
    LOG.info(
        "DataNode {} listening on 127.0.0.1:{}, data dir {}, term {}, {} regions",
        config.id(),
        port(),
        config.dataDir(),
        core.highestTerm(),
        core.view(faults.state()).regions().size());
    return this;
  }

  public int id() {
    return config.id();
  }

  /** The port listened on (the chosen one when configured as 0). */
  public synchronized int port() {
    if (http == null) {
      throw new IllegalStateException("DataNode " + config.id() + " is not started");
    }
    return http.getAddress().getPort();
  }

  /** {@code 127.0.0.1:port}, as a {@link DataNodeClient} takes it. */
  public String address() {
    return InetAddress.getLoopbackAddress().getHostAddress() + ":" + port();
  }

  /** The same state {@code GET /state} answers. */
  public DataNodeState state() {
    synchronized (commandLock) {
      if (core == null) {
        throw new IllegalStateException("DataNode " + config.id() + " is not started");
      }
      return core.view(faults.state());
    }
  }

  /**
   * Stops answering and closes the data directory. Commands blocked by a stall are answered {@value
   * DataNodeErrors#SHUTTING_DOWN}; what was acknowledged is on disk.
   */
  @Override
  public synchronized void close() {
    if (closed || http == null) {
      closed = true;
      return;
    }
    closed = true;
    faults.close();
    http.stop(0);
    executor.shutdownNow();
    synchronized (commandLock) {
      try {
        journal.close();
      } catch (IOException e) {
        LOG.warn("DataNode {}: closing the journal failed: {}", config.id(), e.toString());
      }
    }
    LOG.info("DataNode {} stopped", config.id());
  }

  private void dispatch(HttpExchange exchange) {
    try {
      String path = exchange.getRequestURI().getPath();
      Route route = routes.get(path);
      if (route == null) {
        throw new HttpError(
            HttpURLConnection.HTTP_NOT_FOUND,
            DataNodeErrors.NOT_FOUND,
            "no such path " + path + "; paths: " + String.join(", ", routes.keySet()));
      }
      if (!route.method().equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", route.method());
        throw new HttpError(
            HttpURLConnection.HTTP_BAD_METHOD,
            DataNodeErrors.METHOD_NOT_ALLOWED,
            path + " takes " + route.method() + ", not " + exchange.getRequestMethod());
      }
      Object body = route.handler().handle(exchange);
      if (body instanceof Answer answer) {
        JsonExchange.send(exchange, answer.status(), answer.body());
      } else {
        JsonExchange.send(exchange, HttpURLConnection.HTTP_OK, body);
      }
    } catch (HttpError e) {
      sendQuietly(exchange, e.status(), e.reply());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      sendQuietly(
          exchange,
          HttpURLConnection.HTTP_UNAVAILABLE,
          new ErrorReply(DataNodeErrors.SHUTTING_DOWN, "the DataNode is shutting down"));
    } catch (IOException e) {
      LOG.debug("DataNode {}: exchange failed: {}", config.id(), e.toString());
    } catch (RuntimeException e) {
      String reference = HttpErrors.newReference();
      LOG.error(
          "DataNode {}: bug while handling {} (reference {})",
          config.id(),
          exchange.getRequestURI(),
          reference,
          e);
      sendQuietly(
          exchange,
          HttpURLConnection.HTTP_INTERNAL_ERROR,
          new ErrorReply(DataNodeErrors.INTERNAL, HttpErrors.internalMessage(reference)));
    } finally {
      exchange.close();
    }
  }

  /** A handler's answer with a status other than 200. */
  private record Answer(int status, Object body) {}

  private Object command(CommandType type, HttpExchange exchange)
      throws HttpError, IOException, InterruptedException {
    DataNodeRequest request =
        JsonExchange.parse(JsonExchange.readBody(exchange, MAX_BODY_BYTES), type.requestClass());
    Optional<ErrorReply> fault = faults.beforeCommand(request.step());
    if (fault.isPresent()) {
      return new Answer(HttpURLConnection.HTTP_UNAVAILABLE, fault.get());
    }
    synchronized (commandLock) {
      if (closed) {
        return new Answer(
            HttpURLConnection.HTTP_UNAVAILABLE,
            new ErrorReply(
                DataNodeErrors.SHUTTING_DOWN,
                "the DataNode is shutting down; nothing was applied"));
      }
      if (storageFailed) {
        return new Answer(HttpURLConnection.HTTP_UNAVAILABLE, storageFailedReply());
      }
      DataNodeCore.Decision decision = core.decide(request, clock.getAsLong());
      List<JournalLine> lines = new ArrayList<>(decision.changes().size());
      long seq = core.seq();
      for (Change change : decision.changes()) {
        lines.add(new JournalLine(++seq, change));
      }
      try {
        journal.append(lines);
      } catch (IOException e) {
        storageFailed = true;
        LOG.error(
            "DataNode {} cannot write its journal in {}; it refuses commands until restarted."
                + " Check the disk, then restart it",
            config.id(),
            config.dataDir(),
            e);
        return new Answer(HttpURLConnection.HTTP_UNAVAILABLE, storageFailedReply());
      }
      lines.forEach(core::apply);
      log(type, request, decision);
      if (journal.snapshotDue()) {
        snapshot();
      }
      return new Answer(decision.status(), decision.body());
    }
  }

  private void snapshot() {
    try {
      journal.snapshot(core.durable());
    } catch (IOException e) {
      // The journal still holds everything; the next command tries again.
      LOG.warn(
          "DataNode {} could not snapshot its state in {}: {}; the journal keeps growing until"
              + " a snapshot succeeds",
          config.id(),
          config.dataDir(),
          e.toString());
    }
  }

  private void log(CommandType type, DataNodeRequest request, DataNodeCore.Decision decision) {
    for (Change change : decision.changes()) {
      if (change instanceof Change.TermRaised raised) {
        LOG.info("DataNode {} now at term {}", config.id(), raised.term());
      } else if (change instanceof Change.StaleRejected stale) {
        LOG.info(
            "DataNode {} refused {} of procedure {} step {}: stale term {} < {}",
            config.id(),
            type.commandName(),
            request.procId(),
            request.step(),
            stale.rejected().term(),
            stale.rejected().highestTerm());
      }
    }
    LOG.debug(
        "DataNode {}: {} of procedure {} step {} term {} -> {} {}",
        config.id(),
        type.commandName(),
        request.procId(),
        request.step(),
        request.term(),
        decision.status(),
        decision.body());
  }

  private ErrorReply storageFailedReply() {
    return new ErrorReply(
        DataNodeErrors.STORAGE_FAILED,
        "DataNode "
            + config.id()
            + " could not write its journal and refuses commands until restarted");
  }

  private FaultState configureFaults(HttpExchange exchange) throws HttpError, IOException {
    FaultSettings settings =
        JsonExchange.parse(JsonExchange.readBody(exchange, MAX_BODY_BYTES), FaultSettings.class);
    faults.configure(settings);
    LOG.info("DataNode {}: faults set to {}", config.id(), faults.state());
    return faults.state();
  }

  private FaultState controlFaults(HttpExchange exchange, boolean reset)
      throws HttpError, IOException {
    JsonExchange.readBody(exchange, MAX_BODY_BYTES);
    if (reset) {
      faults.reset();
    } else {
      faults.release();
    }
    LOG.info("DataNode {}: faults {}", config.id(), reset ? "reset" : "released");
    return faults.state();
  }

  private static ThreadFactory threadFactory(int id) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread t = new Thread(runnable, "datanode-" + id + "-http-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static void sendQuietly(HttpExchange exchange, int status, ErrorReply reply) {
    try {
      JsonExchange.send(exchange, status, reply);
    } catch (IOException | RuntimeException e) {
      // the client is gone, or headers were already sent: nothing more to say on this exchange
      LOG.debug("could not send {} {}: {}", status, reply.error(), e.toString());
    }
  }
}
