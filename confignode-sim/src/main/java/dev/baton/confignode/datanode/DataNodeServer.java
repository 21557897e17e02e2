package dev.baton.confignode.datanode;

import dev.baton.confignode.http.ErrorReply;
import dev.baton.confignode.http.HttpCall;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.HttpReply;
import dev.baton.confignode.http.JettyHttpServer;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.http.TlsIdentity;
import dev.baton.consensus.tls.PeerIdentity;
import dev.baton.consensus.tls.TlsSettings;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated DataNode: a durable region table driven by ConfigNode commands over HTTP (on
 * 127.0.0.1 unless bound elsewhere) or HTTPS with client certificates, with term fencing, an
 * idempotency ledger and fault injection (with {@link DataNodeGuard#faults()}). Who may call which
 * route is {@link DataNodeGuard}'s to say and {@link CallerCheck}'s to check, before a request is
 * read; the ConfigNode that sent a command is recorded with it. Runs in its own process ({@code
 * confignode-sim datanode}) or in-process for tests: {@link #start()}, {@link #port()}, {@link
 * #close()}; a new server on the same data directory recovers everything.
 *
 * <p>Commands are applied one at a time: decided by {@link DataNodeCore}, persisted (fsynced)
 * through {@link DataNodeJournal}, applied, then answered. Reads of {@code /state} and fault
 * control never wait for a stalled command. If the journal cannot be written the DataNode refuses
 * every further command ({@value DataNodeErrors#STORAGE_FAILED}) until restarted.
 *
 * <p>The server bounds threads, connections, header time and commands in flight ({@link
 * DataNodeConfig#limits()}); reads of {@code /state} and fault control bypass the cap on commands
 * in flight, so they answer while stalled commands hold every slot. A POST must declare a JSON body
 * (415 otherwise), so a web page cannot send a DataNode a command through a browser.
 */
public final class DataNodeServer implements AutoCloseable {
  /** Largest request body accepted; larger ones get 413. */
  public static final int MAX_BODY_BYTES = 1 << 20;

  static final String STATE_PATH = "/state";
  static final String FAULTS_PATH = "/faults";
  static final String FAULTS_RELEASE_PATH = "/faults/release";
  static final String FAULTS_RESET_PATH = "/faults/reset";

  private static final Logger LOG = LoggerFactory.getLogger(DataNodeServer.class);
  private static final String GET = "GET";
  private static final String POST = "POST";

  private interface Handler {
    /** Answers {@code call} from {@code caller} (null over plain HTTP). */
    Object handle(HttpCall call, PeerIdentity caller)
        throws HttpError, IOException, InterruptedException;
  }

  private record Route(String method, CallerCheck.Need need, Handler handler) {}

  private final DataNodeConfig config;
  private final LongSupplier clock;
  private final FaultInjector faults = new FaultInjector();
  private final CallerCheck callers;
  private final Map<String, Route> routes = new LinkedHashMap<>();
  private final Object commandLock = new Object();

  private JettyHttpServer http;
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
    this.callers = new CallerCheck(config.id(), config.guard().tls().isPresent());
    for (CommandType type : CommandType.values()) {
      routes.put(
          type.path(),
          new Route(
              POST, CallerCheck.Need.CONFIGNODE, (call, caller) -> command(type, call, caller)));
    }
    routes.put(
        STATE_PATH, new Route(GET, CallerCheck.Need.ANY_IDENTITY, (call, caller) -> state()));
    if (config.guard().faults()) {
      routes.put(
          FAULTS_PATH,
          new Route(POST, CallerCheck.Need.ADMIN, (call, caller) -> configureFaults(call)));
      routes.put(
          FAULTS_RELEASE_PATH,
          new Route(POST, CallerCheck.Need.ADMIN, (call, caller) -> controlFaults(call, false)));
      routes.put(
          FAULTS_RESET_PATH,
          new Route(POST, CallerCheck.Need.ADMIN, (call, caller) -> controlFaults(call, true)));
    }
  }

  /** Recovers the data directory and starts answering; returns this. */
  public synchronized DataNodeServer start() throws IOException {
    if (http != null) {
      throw new IllegalStateException("DataNode " + config.id() + " is already started");
    }
    DataNodeGuard guard = config.guard();
    guard.checkBind(config.id(), config.bindHost());
    JettyHttpServer.Builder server =
        JettyHttpServer.builder("datanode-" + config.id(), this::dispatch)
            .bind(config.bindHost(), config.port())
            .limits(config.limits())
            .unlimitedPath(STATE_PATH)
            .unlimitedPath(FAULTS_PATH)
            .unlimitedPath(FAULTS_PATH + "/*");
    if (guard.tls().isPresent()) {
      TlsSettings tls = guard.tls().get();
      server
          .tls(Optional.of(TlsIdentity.of(tls.chain(), tls.privateKey())))
          .requireClientCertificates(tls.trustedCertificates());
    }
    journal = DataNodeJournal.open(config);
    core = journal.recovered();
    try {
      http = server.start();
    } catch (IOException e) {
      journal.close();
      throw new IOException("DataNode " + config.id() + ": " + e.getMessage(), e);
    }
    LOG.info(
        "DataNode {} listening on {}://{}:{}{}, fault routes {}, data dir {}, term {}, {} regions",
        config.id(),
        http.scheme(),
        config.bindHost(),
        port(),
        guard.tls().isPresent() ? " (client certificates of its CA required)" : "",
        guard.faults() ? "on" : "off",
        config.dataDir(),
        core.highestTerm(),
        core.view(faults.state()).regions().size());
    if (guard.exposesPlainHttp(config.bindHost())) {
      LOG.warn(
          "DataNode {} serves plain HTTP on {} (--insecure): any host that reaches it can send"
              + " commands with any term and fence out every ConfigNode leader. Give it"
              + " --tls-cert, --tls-key and --tls-ca",
          config.id(),
          config.bindHost());
    }
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
    return http.port();
  }

  /**
   * {@code HOST:port}, as a {@link DataNodeClient} takes it: the bind address, or 127.0.0.1 when
   * bound to every interface.
   */
  public String address() {
    String host = config.bindHost();
    if (host.equals("0.0.0.0") || host.equals("::")) {
      host = DataNodeConfig.DEFAULT_BIND;
    } else if (host.contains(":") && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    return host + ":" + port();
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
    http.close();
    synchronized (commandLock) {
      try {
        journal.close();
      } catch (IOException e) {
        LOG.warn("DataNode {}: closing the journal failed: {}", config.id(), e.toString());
      }
    }
    LOG.info("DataNode {} stopped", config.id());
  }

  private HttpReply dispatch(HttpCall call) {
    try {
      String path = call.path();
      Route route = routes.get(path);
      if (route == null
          && !config.guard().faults()
          && (path.equals(FAULTS_PATH) || path.startsWith(FAULTS_PATH + "/"))) {
        throw new HttpError(
            HttpURLConnection.HTTP_NOT_FOUND,
            DataNodeErrors.NOT_FOUND,
            "DataNode "
                + config.id()
                + " runs without fault routes; start it with --faults (drills and tests only)");
      }
      if (route == null) {
        throw new HttpError(
            HttpURLConnection.HTTP_NOT_FOUND,
            DataNodeErrors.NOT_FOUND,
            "no such path " + path + "; paths: " + String.join(", ", routes.keySet()));
      }
      if (!route.method().equals(call.method())) {
        call.setResponseHeader("Allow", route.method());
        throw new HttpError(
            HttpURLConnection.HTTP_BAD_METHOD,
            DataNodeErrors.METHOD_NOT_ALLOWED,
            path + " takes " + route.method() + ", not " + call.method());
      }
      PeerIdentity caller = callers.admit(call, route.need());
      if (route.method().equals(POST)) {
        JsonExchange.requireJson(call);
      }
      Object body = route.handler().handle(call, caller);
      if (body instanceof Answer answer) {
        return HttpReply.json(answer.status(), answer.body());
      }
      return HttpReply.json(HttpURLConnection.HTTP_OK, body);
    } catch (HttpError e) {
      return HttpReply.error(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return HttpReply.json(
          HttpURLConnection.HTTP_UNAVAILABLE,
          new ErrorReply(DataNodeErrors.SHUTTING_DOWN, "the DataNode is shutting down"));
    } catch (IOException e) {
      LOG.debug("DataNode {}: reading a request failed: {}", config.id(), e.toString());
      return HttpReply.unreadable(e);
    } catch (RuntimeException e) {
      String reference = HttpErrors.newReference();
      LOG.error(
          "DataNode {}: bug while handling {} {} (reference {})",
          config.id(),
          call.method(),
          call.path(),
          reference,
          e);
      return HttpReply.internal(reference);
    }
  }

  /** A handler's answer with a status other than 200. */
  private record Answer(int status, Object body) {}

  private Object command(CommandType type, HttpCall call, PeerIdentity caller)
      throws HttpError, IOException, InterruptedException {
    DataNodeRequest request = JsonExchange.parse(call.body(MAX_BODY_BYTES), type.requestClass());
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
      String callerId = caller == null ? null : caller.name();
      DataNodeCore.Decision decision = core.decide(request, callerId, clock.getAsLong());
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
      log(type, request, callerId, decision);
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

  private void log(
      CommandType type, DataNodeRequest request, String caller, DataNodeCore.Decision decision) {
    for (Change change : decision.changes()) {
      if (change instanceof Change.TermRaised raised) {
        LOG.info("DataNode {} now at term {}", config.id(), raised.term());
      } else if (change instanceof Change.StaleRejected stale) {
        LOG.info(
            "DataNode {} refused {} of procedure {} step {} from {}: stale term {} < {}",
            config.id(),
            type.commandName(),
            request.procId(),
            request.step(),
            callerName(caller),
            stale.rejected().term(),
            stale.rejected().highestTerm());
      }
    }
    LOG.debug(
        "DataNode {}: {} of procedure {} step {} term {} from {} -> {} {}",
        config.id(),
        type.commandName(),
        request.procId(),
        request.step(),
        request.term(),
        callerName(caller),
        decision.status(),
        decision.body());
  }

  private static String callerName(String caller) {
    return caller == null ? "an unnamed caller (plain HTTP)" : "ConfigNode " + caller;
  }

  private ErrorReply storageFailedReply() {
    return new ErrorReply(
        DataNodeErrors.STORAGE_FAILED,
        "DataNode "
            + config.id()
            + " could not write its journal and refuses commands until restarted");
  }

  private FaultState configureFaults(HttpCall call) throws HttpError, IOException {
    FaultSettings settings = JsonExchange.parse(call.body(MAX_BODY_BYTES), FaultSettings.class);
    faults.configure(settings);
    LOG.info("DataNode {}: faults set to {}", config.id(), faults.state());
    return faults.state();
  }

  private FaultState controlFaults(HttpCall call, boolean reset) throws HttpError, IOException {
    call.body(MAX_BODY_BYTES);
    if (reset) {
      faults.reset();
    } else {
      faults.release();
    }
    LOG.info("DataNode {}: faults {}", config.id(), reset ? "reset" : "released");
    return faults.state();
  }
}
