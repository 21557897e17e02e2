package dev.baton.confignode.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.NodeApiClient;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.datanode.DataNodeState;
import dev.baton.confignode.datanode.DuplicateCommand;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.datanode.RegionReplica;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The drill: a local cluster of ConfigNode and DataNode processes, a mixed workload, a SIGKILL of
 * the leader in the middle, and a check of the invariants from the procedures' final states, the
 * metadata and the DataNodes' ledgers. Prints progress and a report; {@link #run} returns true only
 * if every invariant holds.
 */
public final class Drill implements AutoCloseable {
  /** How long the cluster may take to elect and recover; generous for a loaded 2-core machine. */
  static final Duration CLUSTER_WAIT = Duration.ofSeconds(90);

  /** How long the whole workload may take to reach terminal states. */
  static final Duration FINISH_WAIT = Duration.ofMinutes(5);

  static final Duration POLL = Duration.ofMillis(20);

  /** Sleep procedures in flight during the kill: live procedures parked in WAITING_TIMEOUT. */
  static final int SLEEPERS = 3;

  static final long SLEEP_MILLIS = 1500;

  /** Latency added to every DataNode command in phase 2, so steps are in flight at the kill. */
  static final Duration PHASE2_LATENCY = Duration.ofMillis(100);

  /** Nonce group of the drill's submissions (a retried submission after a failover is one). */
  static final long NONCE_GROUP = 77;

  /**
   * Settings.
   *
   * @param nodes ConfigNode processes
   * @param dataNodes DataNode processes
   * @param procedures size of the workload (procedures submitted, roughly)
   * @param keepDir keep the temp dir (logs, data) for inspection
   */
  public record Settings(int nodes, int dataNodes, int procedures, boolean keepDir) {
    public static final int DEFAULT_NODES = 3;
    public static final int DEFAULT_DATANODES = 3;
    public static final int DEFAULT_PROCEDURES = 30;
  }

  private final Settings settings;
  private final PrintStream out;
  private final Path dir;
  private final List<LocalProcess> processes = new ArrayList<>();
  private final Map<String, LocalProcess> nodeProcs = new LinkedHashMap<>();
  private final Map<String, String> httpOf = new LinkedHashMap<>();
  private final List<String> dataNodeAddrs = new ArrayList<>();
  private final Map<String, Long> submitted = new LinkedHashMap<>();
  private final Report report = new Report();
  private NodeApiClient api;
  private int phaseStart;
  private long nonce;

  public Drill(Settings settings, PrintStream out) throws IOException {
    this.settings = settings;
    this.out = out;
    this.dir = Files.createTempDirectory("baton-drill");
  }

  /** Runs the drill; true if every invariant held. */
  public boolean run() throws IOException, InterruptedException {
    progress("working in %s", dir);
    startDataNodes();
    startNodes();
    String leader = awaitLeader(null, -1);
    progress("leader is %s; waiting for the DataNodes to register", leader);
    awaitTrue(
        () -> metadata().get("dataNodes").size() == settings.dataNodes(), "DataNodes registered");

    long workloadStart = System.currentTimeMillis();
    int databases = Math.max(4, settings.procedures() / 3);
    progress("phase 1: create %d databases", databases);
    for (int i = 0; i < databases; i++) {
      submit("create db" + i, "CreateDatabase", args("name", "db" + i));
    }
    awaitAllFinished();

    JsonNode meta = metadata();
    List<String> migrations =
        planMigrations(meta, Math.max(2, settings.procedures() / 3), databases);
    progress(
        "phase 2: %d migrations, deletions, new databases, sleepers, with %d ms added per DataNode"
            + " command so the kill lands mid-step; the leader dies meanwhile",
        migrations.size(), PHASE2_LATENCY.toMillis());
    for (String addr : dataNodeAddrs) {
      new DataNodeClient(addr).addLatency(PHASE2_LATENCY);
    }
    phaseStart = submitted.size();
    for (int i = 0; i < SLEEPERS; i++) {
      submit("sleep " + i, "Sleep", args("millis", SLEEP_MILLIS));
    }
    for (String m : migrations) {
      String[] p = m.split(",");
      submit(
          "migrate region " + p[0],
          "MigrateRegion",
          args(
              "regionId",
              Integer.parseInt(p[0]),
              "from",
              Integer.parseInt(p[1]),
              "to",
              Integer.parseInt(p[2])));
    }
    int deletes = Math.max(1, databases / 3);
    for (int i = 0; i < deletes; i++) {
      submit(
          "delete db" + (databases - 1 - i),
          "DeleteDatabase",
          args("name", "db" + (databases - 1 - i)));
    }
    for (int i = 0; i < Math.max(1, databases / 3); i++) {
      submit("create db" + (databases + i), "CreateDatabase", args("name", "db" + (databases + i)));
    }
    killLeader(leader);
    awaitAllFinished();
    for (String addr : dataNodeAddrs) {
      new DataNodeClient(addr).resetFaults();
    }

    progress("phase 3: remove DataNode 1 (its regions migrate as child procedures)");
    submit("remove DataNode 1", "RemoveDataNode", args("dataNodeId", 1));
    awaitAllFinished();
    report.wallMillis = System.currentTimeMillis() - workloadStart;
    return check();
  }

  private void startDataNodes() throws IOException, InterruptedException {
    for (int i = 1; i <= settings.dataNodes(); i++) {
      int port = freePort();
      String addr = "127.0.0.1:" + port;
      LocalProcess p =
          LocalProcess.start(
              "datanode-" + i,
              dir,
              List.of(
                  "datanode",
                  "--id",
                  Integer.toString(i),
                  "--port",
                  Integer.toString(port),
                  "--data-dir",
                  dir.resolve("dn" + i).toString()));
      processes.add(p);
      dataNodeAddrs.add(addr);
      DataNodeClient client = new DataNodeClient(addr);
      awaitTrue(() -> client.state() != null, "DataNode " + i + " up");
    }
    progress("%d DataNodes up: %s", settings.dataNodes(), dataNodeAddrs);
  }

  private void startNodes() throws IOException, InterruptedException {
    StringBuilder peers = new StringBuilder();
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= settings.nodes(); i++) {
      String id = "cn" + i;
      ids.add(id);
      peers
          .append(peers.length() == 0 ? "" : ",")
          .append(id)
          .append("=127.0.0.1:")
          .append(freePort());
      httpOf.put(id, "127.0.0.1:" + freePort());
    }
    peersArg = peers.toString();
    for (String id : ids) {
      startNode(id);
    }
    api = new NodeApiClient(new ArrayList<>(httpOf.values()));
    progress("%d ConfigNodes started: %s", settings.nodes(), httpOf);
  }

  /** The --peers value every ConfigNode process gets (also a restarted one). */
  private String peersArg;

  private void startNode(String id) throws IOException {
    String http = httpOf.get(id);
    LocalProcess p =
        LocalProcess.start(
            id,
            dir,
            List.of(
                "node",
                "--id",
                id,
                "--peers",
                peersArg,
                "--data-dir",
                dir.resolve(id).toString(),
                "--http-port",
                http.substring(http.indexOf(':') + 1),
                "--datanodes",
                String.join(",", dataNodeAddrs)));
    processes.add(p);
    nodeProcs.put(id, p);
  }

  private void killLeader(String leader) throws IOException, InterruptedException {
    awaitTrue(
        () -> finishedCount() >= phaseStart + (submitted.size() - phaseStart) / 4,
        "a quarter of phase 2 done");
    long term = api.cluster(httpOf.get(leader)).get("term").asLong();
    progress(
        "SIGKILL the leader %s (term %d) with %d of %d procedures finished",
        leader, term, finishedCount(), submitted.size());
    report.killAt = System.currentTimeMillis();
    report.oldTerm = term;
    nodeProcs.get(leader).kill();
    String next = awaitLeader(leader, term);
    JsonNode c = api.cluster(httpOf.get(next));
    report.newLeader = next;
    report.newTerm = c.get("term").asLong();
    report.runningAt = c.get("executor").path("lastRecoveryRunningAt").asLong();
    report.rebuilt = c.get("executor").path("lastRecoveryProcedures").asLong();
    progress(
        "new leader %s in term %d, executor running %d ms after the kill",
        next, report.newTerm, report.runningAt - report.killAt);
    LocalProcess restarted =
        LocalProcess.start(
            leader + "-restarted",
            dir,
            List.of(
                "node",
                "--id",
                leader,
                "--peers",
                peersArg,
                "--data-dir",
                dir.resolve(leader).toString(),
                "--http-port",
                httpOf.get(leader).substring(httpOf.get(leader).indexOf(':') + 1)));
    processes.add(restarted);
    nodeProcs.put(leader, restarted);
    progress("restarted %s; it catches up as a follower", leader);
  }

  /** Waits for a LEADER_RUNNING node other than {@code not} in a term above {@code afterTerm}. */
  private String awaitLeader(String not, long afterTerm) throws InterruptedException, IOException {
    long deadline = System.nanoTime() + CLUSTER_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      for (Map.Entry<String, String> e : httpOf.entrySet()) {
        if (e.getKey().equals(not)) {
          continue;
        }
        try {
          JsonNode c = api.cluster(e.getValue());
          if (report.killAt > 0
              && report.electedAt == 0
              && c.path("term").asLong() > afterTerm
              && !c.path("leaderId").isNull()
              && !c.path("leaderId").asText().equals(not)) {
            report.electedAt = System.currentTimeMillis();
          }
          if ("LEADER_RUNNING".equals(c.path("role").asText())
              && c.path("term").asLong() > afterTerm) {
            return e.getKey();
          }
        } catch (IOException unreachable) {
          // starting, or the killed one
        }
      }
      Thread.sleep(POLL.toMillis());
    }
    throw new IOException("no leader within " + CLUSTER_WAIT);
  }

  private void submit(String what, String type, JsonNode args)
      throws IOException, InterruptedException {
    long n = ++nonce;
    long deadline = System.nanoTime() + CLUSTER_WAIT.toNanos();
    while (true) {
      try {
        submitted.put(what, api.submit(type, args, NONCE_GROUP, n));
        return;
      } catch (NodeApiClient.ApiException e) {
        if (!e.retryable() || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(POLL.toMillis());
      }
    }
  }

  private long finishedCount() throws IOException, InterruptedException {
    long n = 0;
    for (JsonNode p : api.get("/api/procedures")) {
      if (p.get("finished").asBoolean() && p.get("parentProcId").asLong() < 0) {
        n++;
      }
    }
    return n;
  }

  private void awaitAllFinished() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + FINISH_WAIT.toNanos();
    long lastShown = -1;
    while (true) {
      JsonNode all;
      try {
        all = api.get("/api/procedures");
      } catch (NodeApiClient.ApiException e) {
        Thread.sleep(POLL.toMillis());
        continue;
      }
      long done = 0;
      for (JsonNode p : all) {
        if (p.get("finished").asBoolean()) {
          done++;
        }
      }
      if (done != lastShown) {
        progress("%d of %d procedures finished", done, all.size());
        lastShown = done;
      }
      if (done == all.size() && all.size() >= submitted.size()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("procedures still running after " + FINISH_WAIT);
      }
      Thread.sleep(POLL.toMillis() * 5);
    }
  }

  private JsonNode metadata() throws IOException, InterruptedException {
    return api.get("/api/metadata");
  }

  /** Migrations region,from,to: one per region, databases that are not deleted later. */
  private static List<String> planMigrations(JsonNode meta, int count, int databases) {
    Set<Integer> dataNodes = new HashSet<>();
    for (JsonNode d : meta.get("dataNodes")) {
      dataNodes.add(d.get("id").asInt());
    }
    int keep = databases - Math.max(1, databases / 3);
    List<String> out = new ArrayList<>();
    for (JsonNode r : meta.get("regions")) {
      String db = r.get("database").asText();
      if (Integer.parseInt(db.substring(2)) >= keep || out.size() >= count) {
        continue;
      }
      Set<Integer> replicas = new HashSet<>();
      r.get("replicas").forEach(x -> replicas.add(x.asInt()));
      Integer to = dataNodes.stream().filter(d -> !replicas.contains(d)).findFirst().orElse(null);
      if (to != null) {
        out.add(r.get("id").asInt() + "," + r.get("replicas").get(0).asInt() + "," + to);
      }
    }
    return out;
  }

  /** Checks the invariants, prints the report; true if all hold. */
  private boolean check() throws IOException, InterruptedException {
    List<String> violations = new ArrayList<>();
    JsonNode all = api.get("/api/procedures");
    Map<String, Integer> outcomes = new TreeMap<>();
    for (JsonNode p : all) {
      if (!p.get("finished").asBoolean()) {
        violations.add("procedure " + p.get("procId") + " is not terminal: " + p.get("state"));
      }
      if (p.get("parentProcId").asLong() < 0) {
        outcomes.merge(p.get("type").asText() + " " + p.get("state").asText(), 1, Integer::sum);
      }
    }
    JsonNode meta = metadata();
    Map<Integer, Map<Integer, JsonNode>> expected = new HashMap<>();
    for (JsonNode r : meta.get("regions")) {
      for (JsonNode dn : r.get("replicas")) {
        expected.computeIfAbsent(dn.asInt(), k -> new HashMap<>()).put(r.get("id").asInt(), r);
      }
    }
    long duplicates = 0;
    long firstNewStep = Long.MAX_VALUE;
    for (String addr : dataNodeAddrs) {
      DataNodeState s = new DataNodeClient(addr).state();
      Map<Integer, JsonNode> want = expected.getOrDefault(s.id(), Map.of());
      Set<Integer> have = new HashSet<>();
      for (RegionReplica r : s.regions()) {
        have.add(r.regionId());
        JsonNode m = want.get(r.regionId());
        if (m == null) {
          violations.add(
              "DataNode "
                  + s.id()
                  + " hosts region "
                  + r.regionId()
                  + " that the metadata does not place there");
        } else if (!m.get("database").asText().equals(r.database())
            || !m.get("kind").asText().equals(r.kind().name())) {
          violations.add(
              "DataNode " + s.id() + " region " + r.regionId() + " differs from the metadata");
        }
      }
      for (int id : want.keySet()) {
        if (!have.contains(id)) {
          violations.add(
              "metadata places region "
                  + id
                  + " on DataNode "
                  + s.id()
                  + ", which does not host it");
        }
      }
      long highest = 0;
      for (LedgerEntry e : s.ledger()) {
        if (e.term() < highest) {
          violations.add(
              "DataNode "
                  + s.id()
                  + " accepted "
                  + e.command()
                  + " of term "
                  + e.term()
                  + " after term "
                  + highest);
        }
        highest = Math.max(highest, e.term());
        if (e.term() == report.newTerm) {
          firstNewStep = Math.min(firstNewStep, e.time());
        }
      }
      Map<String, Integer> perKey = new HashMap<>();
      for (DuplicateCommand d : s.duplicates()) {
        int n = perKey.merge(d.procId() + "/" + d.step(), 1, Integer::sum);
        if (n > 1) {
          violations.add(
              "step "
                  + d.step()
                  + " of procedure "
                  + d.procId()
                  + " re-ran "
                  + n
                  + " times with one failover");
        }
      }
      duplicates += s.counts().duplicates();
      report.staleRejected += s.counts().staleRejected();
    }
    report.firstStepAt = firstNewStep == Long.MAX_VALUE ? 0 : firstNewStep;
    printReport(outcomes, duplicates, all.size());
    if (violations.isEmpty()) {
      out.println("RESULT: every invariant holds");
      return true;
    }
    out.println("RESULT: " + violations.size() + " invariant violations:");
    violations.forEach(v -> out.println("  - " + v));
    return false;
  }

  private void printReport(Map<String, Integer> outcomes, long duplicates, int total) {
    out.println();
    out.println("=== Baton drill report ===");
    out.printf(
        Locale.ROOT,
        "cluster: %d ConfigNodes, %d DataNodes (processes), dir %s%n",
        settings.nodes(),
        settings.dataNodes(),
        dir);
    out.println("timeline (ms after the SIGKILL of the leader):");
    out.printf(Locale.ROOT, "  kill of leader (term %d)          0%n", report.oldTerm);
    out.printf(
        Locale.ROOT,
        "  new leader %s elected (term %d) %6d%n",
        report.newLeader,
        report.newTerm,
        report.electedAt - report.killAt);
    out.printf(
        Locale.ROOT,
        "  executor recovered (%d procedures) %6d%n",
        report.rebuilt,
        report.runningAt - report.killAt);
    out.printf(
        Locale.ROOT,
        "  first step of the new term         %6s%n",
        report.firstStepAt == 0 ? "none" : Long.toString(report.firstStepAt - report.killAt));
    out.println("outcomes (root procedures):");
    outcomes.forEach((k, v) -> out.printf(Locale.ROOT, "  %-32s %d%n", k, v));
    out.printf(
        Locale.ROOT, "re-executed DataNode commands (answered from the ledger): %d%n", duplicates);
    out.printf(
        Locale.ROOT, "stale-term commands rejected by DataNodes: %d%n", report.staleRejected);
    out.printf(
        Locale.ROOT,
        "throughput: %d procedures in %.1f s of workload (phases 1-3) = %.1f procedures/s%n",
        total,
        report.wallMillis / 1000.0,
        total * 1000.0 / report.wallMillis);
  }

  private void progress(String format, Object... args) {
    out.printf(
        Locale.ROOT,
        "[drill %5.1fs] " + format + "%n",
        Stream.concat(
                Stream.of((System.currentTimeMillis() - report.started) / 1000.0), Stream.of(args))
            .toArray());
    out.flush();
  }

  @Override
  public void close() {
    for (LocalProcess p : processes) {
      p.kill();
    }
    if (!settings.keepDir()) {
      LocalProcess.deleteTree(dir);
    } else {
      out.println("kept " + dir);
    }
  }

  static JsonNode args(Object... kv) {
    ObjectNode n = Json.LENIENT.createObjectNode();
    for (int i = 0; i < kv.length; i += 2) {
      n.set((String) kv[i], Json.LENIENT.valueToTree(kv[i + 1]));
    }
    return n;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  interface Check {
    boolean ok() throws Exception;
  }

  private void awaitTrue(Check check, String what) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + CLUSTER_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (check.ok()) {
          return;
        }
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception notYet) {
        // keep waiting
      }
      Thread.sleep(POLL.toMillis());
    }
    throw new IOException("gave up waiting for: " + what);
  }

  /** What the report prints. */
  private static final class Report {
    final long started = System.currentTimeMillis();
    long killAt;
    long electedAt;
    long runningAt;
    long firstStepAt;
    long oldTerm;
    long newTerm;
    long rebuilt;
    long staleRejected;
    long wallMillis;
    String newLeader;
  }
}
