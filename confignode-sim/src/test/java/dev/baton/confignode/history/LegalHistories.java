package dev.baton.confignode.history;

import dev.baton.confignode.datanode.LedgerEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * Seeded legal histories from a simulated linearizable register of procedures: clients make
 * sequential operations with random real-time intervals; each takes effect at one instant inside
 * its interval, in that order, on the model (ids handed out in order, one procedure per nonce,
 * procedures finishing later, databases created and deleted when their procedures succeed). Some
 * submissions time out applied or not, some fail, some are retried; reads go to any node and see
 * the model as of their instant. The DataNode ledgers follow a sequence of leader terms.
 */
final class LegalHistories {
  static final int CLIENTS = 3;
  static final int OPERATIONS_PER_CLIENT = 40;
  static final int MAX_GAP = 50;
  static final int MAX_DURATION = 200;
  static final int MAX_RUN = 300;
  static final int DATANODES = 3;
  static final int TERMS = 4;
  static final int COMMANDS_PER_TERM = 6;
  static final String[] TYPES = {
    HistoryBuilder.NOOP, HistoryBuilder.SLEEP, Request.CREATE_DATABASE, Request.DELETE_DATABASE
  };

  /** How a submission is planned to end. */
  enum Plan {
    ACKED,
    UNKNOWN_APPLIED,
    UNKNOWN_LOST,
    FAILED
  }

  private record Planned(
      int client, long start, long end, long at, OperationKind kind, Request request, Plan plan) {}

  private static final class Proc {
    final long id;
    final boolean root;
    final String type;
    final String database;
    String state = "RUNNABLE";
    boolean finished;

    Proc(long id, boolean root, String type, String database) {
      this.id = id;
      this.root = root;
      this.type = type;
      this.database = database;
    }

    ProcedureSeen seen() {
      return new ProcedureSeen(id, root, type, state, finished);
    }
  }

  private final Random random;
  private final Map<Long, Proc> procs = new TreeMap<>();
  private final Map<Long, Long> idOfNonce = new HashMap<>();
  private final Set<String> databases = new HashSet<>();
  private long maxId;

  private LegalHistories(long seed) {
    this.random = new Random(seed);
  }

  static History generate(long seed) {
    return new LegalHistories(seed).run();
  }

  private History run() {
    List<Planned> plan = plan();
    // effects in the order of their instants; procedures finish at their own instants
    PriorityQueue<long[]> finishes = new PriorityQueue<>(Comparator.comparingLong(f -> f[0]));
    List<Planned> byInstant = new ArrayList<>(plan);
    byInstant.sort(Comparator.comparingLong(Planned::at));
    Map<Planned, Request> requests = new IdentityHashMap<>();
    Map<Planned, Reply> replies = new IdentityHashMap<>();
    for (Planned p : byInstant) {
      while (!finishes.isEmpty() && finishes.peek()[0] <= p.at()) {
        finish(procs.get(finishes.poll()[1]));
      }
      Request r = p.kind() == OperationKind.READ_PROCEDURE ? readTarget() : p.request();
      requests.put(p, r);
      replies.put(p, apply(p.kind(), r, p, finishes));
    }
    while (!finishes.isEmpty()) {
      finish(procs.get(finishes.poll()[1]));
    }
    List<Operation> operations = new ArrayList<>();
    for (Planned p : plan) {
      operations.add(
          new Operation(
              operations.size() + 1,
              "c" + p.client(),
              "n" + random.nextInt(CLIENTS),
              p.start(),
              p.end(),
              requests.get(p),
              replies.get(p)));
    }
    List<ProcedureSeen> end = procs.values().stream().map(Proc::seen).toList();
    return new History(
        operations, new FinalState(end, databases, ledgers(), Set.of(HistoryBuilder.SELF)));
  }

  /** Each client's operations, one after the other, with the instant each takes effect. */
  private List<Planned> plan() {
    List<Planned> out = new ArrayList<>();
    List<String> names = new ArrayList<>();
    long nonce = 0;
    for (int c = 0; c < CLIENTS; c++) {
      long t = random.nextInt(MAX_GAP);
      Planned retry = null;
      for (int i = 0; i < OPERATIONS_PER_CLIENT; i++) {
        long start = t + 1 + random.nextInt(MAX_GAP);
        long end = start + random.nextInt(MAX_DURATION);
        long at = start + (end == start ? 0 : random.nextInt((int) (end - start + 1)));
        t = end;
        int roll = random.nextInt(100);
        if (retry != null && roll < 50) {
          out.add(
              new Planned(c, start, end, at, OperationKind.SUBMIT, retry.request(), retryPlan()));
          retry = null;
          continue;
        }
        Planned p;
        if (roll < 40) {
          String type = TYPES[random.nextInt(TYPES.length)];
          String db = null;
          if (type.equals(Request.CREATE_DATABASE)) {
            db = "db" + names.size();
            names.add(db);
          } else if (type.equals(Request.DELETE_DATABASE)) {
            db = names.isEmpty() ? "db0" : names.get(random.nextInt(names.size()));
          }
          Plan plan = Plan.values()[random.nextInt(Plan.values().length)];
          if (random.nextBoolean()) {
            plan = Plan.ACKED;
          }
          p =
              new Planned(
                  c, start, end, at, OperationKind.SUBMIT, Request.submit(++nonce, type, db), plan);
          retry = plan == Plan.UNKNOWN_APPLIED || plan == Plan.UNKNOWN_LOST ? p : null;
        } else if (roll < 80) {
          p = new Planned(c, start, end, at, OperationKind.READ_PROCEDURE, null, null);
        } else if (roll < 90) {
          p = new Planned(c, start, end, at, OperationKind.READ_LIST, Request.readList(), null);
        } else {
          p =
              new Planned(
                  c, start, end, at, OperationKind.READ_METADATA, Request.readMetadata(), null);
        }
        out.add(p);
      }
    }
    return out;
  }

  private Plan retryPlan() {
    return random.nextInt(4) == 0 ? Plan.UNKNOWN_LOST : Plan.ACKED;
  }

  /** A procedure that exists, often the newest, or now and then one that does not (yet). */
  private Request readTarget() {
    int roll = random.nextInt(10);
    if (procs.isEmpty() || roll < 2) {
      return Request.readProcedure(maxId + 1 + random.nextInt(3));
    }
    if (roll < 5) {
      return Request.readProcedure(maxId);
    }
    List<Long> ids = new ArrayList<>(procs.keySet());
    return Request.readProcedure(ids.get(random.nextInt(ids.size())));
  }

  private Reply apply(OperationKind kind, Request r, Planned p, PriorityQueue<long[]> finishes) {
    switch (kind) {
      case SUBMIT:
        {
          if (p.plan() == Plan.FAILED) {
            return Reply.failed("400 invalid_request");
          }
          if (p.plan() == Plan.UNKNOWN_LOST) {
            return Reply.unknown("timed out before the log took it");
          }
          Long id = idOfNonce.get(p.request().nonce());
          if (id == null) {
            id = create(p.request(), p.at(), finishes);
          }
          return p.plan() == Plan.ACKED ? Reply.submitted(id) : Reply.unknown("timed out");
        }
      case READ_PROCEDURE:
        {
          if (random.nextInt(10) == 0) {
            return Reply.unknown("no answer");
          }
          Proc found = procs.get(r.procId());
          return found == null ? Reply.notFound() : Reply.found(found.seen());
        }
      case READ_LIST:
        return random.nextInt(10) == 0
            ? Reply.unknown("no answer")
            : Reply.procedures(procs.values().stream().map(Proc::seen).toList());
      case READ_METADATA:
      default:
        return Reply.databases(databases);
    }
  }

  private long create(Request r, long at, PriorityQueue<long[]> finishes) {
    maxId += 1 + (random.nextInt(4) == 0 ? random.nextInt(3) : 0); // children take ids too
    long id = maxId;
    procs.put(id, new Proc(id, true, r.type(), r.database()));
    idOfNonce.put(r.nonce(), id);
    finishes.add(new long[] {at + 1 + random.nextInt(MAX_RUN), id});
    if (random.nextInt(5) == 0) {
      long child = ++maxId;
      procs.put(child, new Proc(child, false, "Child", null));
      finishes.add(new long[] {at + 1 + random.nextInt(MAX_RUN), child});
    }
    return id;
  }

  private void finish(Proc p) {
    boolean ok =
        switch (p.type) {
          case Request.CREATE_DATABASE -> databases.add(p.database);
          case Request.DELETE_DATABASE -> databases.remove(p.database);
          default -> random.nextInt(5) != 0;
        };
    p.state = ok ? ProcedureSeen.SUCCESS : "ROLLEDBACK";
    p.finished = true;
  }

  /** Ledgers of commands sent by leaders of growing terms, in time order, on random DataNodes. */
  private Map<Integer, List<LedgerEntry>> ledgers() {
    Map<Integer, List<LedgerEntry>> out = new LinkedHashMap<>();
    for (int d = 1; d <= DATANODES; d++) {
      out.put(d, new ArrayList<>());
    }
    long time = 0;
    for (int term = 1; term <= TERMS; term++) {
      for (int seq = 1; seq <= COMMANDS_PER_TERM; seq++) {
        long proc = 1 + random.nextInt((int) Math.max(1, maxId));
        out.get(1 + random.nextInt(DATANODES))
            .add(HistoryBuilder.entry(proc, "STEP" + seq, term, seq, ++time));
      }
    }
    return out;
  }
}
