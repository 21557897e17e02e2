package dev.baton.confignode.datanode;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.ErrorReply;
import java.net.HttpURLConnection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The decisions of a DataNode, without threads, clocks or files: {@link #decide} says what a
 * command changes and what to answer, {@link #apply} applies a change. The server persists the
 * changes between the two; recovery replays them through {@link #apply}. Not thread-safe: the
 * server serializes commands.
 *
 * <p>Order of checks for a command: term fencing first (a stale term is refused and recorded, even
 * for a command already in the ledger: a deposed leader gets no positive answer), then the term is
 * raised if higher, then the ledger (a known key is answered from it), then the command order (a
 * command older than one of its procedure already applied is refused and recorded: {@link
 * CommandOrder}), then the command itself. These checks run when the command is applied, under the
 * server's command lock, not when it arrives: a command held by a stall is judged on release. Other
 * refusals change nothing but a raised term, and are not kept in the ledger, so a retry is judged
 * afresh.
 */
final class DataNodeCore {
  /** What to persist and what to answer. {@code body} is a {@link DataNodeReply} or an error. */
  record Decision(List<Change> changes, int status, Object body) {}

  private record LedgerKey(long procId, String step) {}

  private final int id;
  private final int ledgerCapacity;
  private final int historyCapacity;

  private long seq;
  private long highestTerm;
  private final Map<Integer, RegionReplica> regions = new TreeMap<>();
  private final LinkedHashMap<LedgerKey, LedgerEntry> ledger = new LinkedHashMap<>();
  private final Deque<RejectedCommand> rejected = new ArrayDeque<>();
  private final Deque<DuplicateCommand> duplicates = new ArrayDeque<>();
  private final Deque<CacheInvalidation> invalidations = new ArrayDeque<>();
  private final Deque<SupersededCommand> superseded = new ArrayDeque<>();
  private final CommandOrder order;
  private DataNodeCounts counts = DataNodeCounts.ZERO;

  DataNodeCore(int id, int ledgerCapacity, int historyCapacity) {
    this.id = id;
    this.ledgerCapacity = ledgerCapacity;
    this.historyCapacity = historyCapacity;
    this.order = new CommandOrder(ledgerCapacity);
  }

  static DataNodeCore restore(DurableState state, int ledgerCapacity, int historyCapacity) {
    DataNodeCore core = new DataNodeCore(state.dataNodeId(), ledgerCapacity, historyCapacity);
    core.seq = state.seq();
    core.highestTerm = state.highestTerm();
    for (RegionReplica r : state.regions()) {
      core.regions.put(r.regionId(), r);
    }
    for (LedgerEntry e : state.ledger()) {
      core.addToLedger(e);
    }
    state.rejected().forEach(r -> addBounded(core.rejected, r, historyCapacity));
    state.duplicates().forEach(d -> addBounded(core.duplicates, d, historyCapacity));
    state.invalidations().forEach(i -> addBounded(core.invalidations, i, historyCapacity));
    state.superseded().forEach(s -> addBounded(core.superseded, s, historyCapacity));
    core.order.restore(state.newest());
    core.counts = state.counts();
    return core;
  }

  int id() {
    return id;
  }

  long seq() {
    return seq;
  }

  long highestTerm() {
    return highestTerm;
  }

  /**
   * Decides what {@code request}, arriving at {@code now} (epoch ms) from the ConfigNode {@code
   * caller} (null when unknown), changes and answers.
   */
  Decision decide(DataNodeRequest request, String caller, long now) {
    CommandType type = CommandType.of(request);
    long term = request.term();
    if (term < highestTerm) {
      RejectedCommand r =
          new RejectedCommand(
              request.procId(), request.step(), term, highestTerm, type.commandName(), now, caller);
      return new Decision(
          List.of(new Change.StaleRejected(r)),
          HttpURLConnection.HTTP_CONFLICT,
          new ErrorReply(
              DataNodeErrors.STALE_TERM,
              "DataNode "
                  + id
                  + " refused "
                  + type.commandName()
                  + " of procedure "
                  + request.procId()
                  + " step "
                  + request.step()
                  + ": term "
                  + term
                  + " is below the highest term seen, "
                  + highestTerm
                  + "; the sender is no longer the ConfigNode leader. Nothing was applied"));
    }
    List<Change> changes = new ArrayList<>();
    if (term > highestTerm) {
      changes.add(new Change.TermRaised(term));
    }
    long termAfter = Math.max(term, highestTerm);
    JsonNode args = DataNodeJson.argsOf(request);

    LedgerEntry first = ledger.get(new LedgerKey(request.procId(), request.step()));
    if (first != null) {
      if (!first.command().equals(type.commandName())
          || !DataNodeJson.sameArgs(first.args(), args)) {
        return new Decision(
            changes,
            HttpURLConnection.HTTP_CONFLICT,
            new ErrorReply(
                DataNodeErrors.IDEMPOTENCY_CONFLICT,
                "procedure "
                    + request.procId()
                    + " step "
                    + request.step()
                    + " was first used for "
                    + first.command()
                    + " "
                    + first.args()
                    + ", now for "
                    + type.commandName()
                    + " "
                    + args
                    + "; a step that sends several commands to one DataNode needs a distinct step"
                    + " string for each"));
      }
      changes.add(
          new Change.DuplicateSeen(
              new DuplicateCommand(
                  request.procId(), request.step(), term, type.commandName(), now)));
      return new Decision(changes, HttpURLConnection.HTTP_OK, first.reply().asDuplicate());
    }
    Optional<OrderMark> newer = order.overtaking(request.procId(), term, request.seq());
    if (newer.isPresent()) {
      return superseded(request, type, newer.get(), changes, now);
    }

    Outcome outcome = evaluate(request, type, termAfter, now);
    if (outcome.error != null) {
      return new Decision(changes, HttpURLConnection.HTTP_CONFLICT, outcome.error);
    }
    DataNodeReply reply =
        new DataNodeReply(
            id, type.commandName(), false, outcome.changed, outcome.region, termAfter);
    LedgerEntry entry =
        new LedgerEntry(
            request.procId(),
            request.step(),
            term,
            request.seq(),
            type.commandName(),
            args,
            reply,
            now,
            caller);
    changes.add(new Change.Applied(entry, outcome.effect));
    return new Decision(changes, HttpURLConnection.HTTP_OK, reply);
  }

  private Decision superseded(
      DataNodeRequest request, CommandType type, OrderMark newer, List<Change> changes, long now) {
    changes.add(
        new Change.Superseded(
            new SupersededCommand(
                request.procId(),
                request.step(),
                request.term(),
                request.seq(),
                type.commandName(),
                newer.step(),
                newer.term(),
                newer.seq(),
                now)));
    return new Decision(
        changes,
        HttpURLConnection.HTTP_CONFLICT,
        new ErrorReply(
            DataNodeErrors.SUPERSEDED,
            String.format(
                "DataNode %d refused %s of procedure %d step %s (term %d, seq %d): the procedure's"
                    + " later command %s (term %d, seq %d) was already applied, so the sender had"
                    + " moved on from this one. Nothing was applied",
                id,
                type.commandName(),
                request.procId(),
                request.step(),
                request.term(),
                request.seq(),
                newer.step(),
                newer.term(),
                newer.seq())));
  }

  /** Applies one persisted change; lines must come in sequence. */
  void apply(JournalLine line) {
    if (line.seq() != seq + 1) {
      throw new IllegalStateException(
          "DataNode " + id + " expected journal line " + (seq + 1) + ", got " + line.seq());
    }
    Change change = line.change();
    if (change instanceof Change.TermRaised raised) {
      if (raised.term() <= highestTerm) {
        throw new IllegalStateException(
            "DataNode "
                + id
                + " journal line "
                + line.seq()
                + " raises the term to "
                + raised.term()
                + " but it is already "
                + highestTerm);
      }
      highestTerm = raised.term();
    } else if (change instanceof Change.Applied applied) {
      applyEffect(applied.effect());
      addToLedger(applied.entry());
      order.applied(OrderMark.of(applied.entry()));
      counts = counts.plusApplied(applied.effect() instanceof Effect.Invalidate);
    } else if (change instanceof Change.StaleRejected stale) {
      addBounded(rejected, stale.rejected(), historyCapacity);
      counts = counts.plusStaleRejected();
    } else if (change instanceof Change.DuplicateSeen dup) {
      addBounded(duplicates, dup.duplicate(), historyCapacity);
      counts = counts.plusDuplicate();
    } else if (change instanceof Change.Superseded refused) {
      addBounded(superseded, refused.superseded(), historyCapacity);
      counts = counts.plusSuperseded();
    } else {
      throw new IllegalStateException("unknown change " + change);
    }
    seq = line.seq();
  }

  DurableState durable() {
    return new DurableState(
        DurableState.FORMAT,
        id,
        seq,
        highestTerm,
        List.copyOf(regions.values()),
        List.copyOf(ledger.values()),
        List.copyOf(rejected),
        List.copyOf(duplicates),
        List.copyOf(invalidations),
        List.copyOf(superseded),
        order.marks(),
        counts);
  }

  DataNodeState view(FaultState faults) {
    return new DataNodeState(
        id,
        highestTerm,
        List.copyOf(regions.values()),
        List.copyOf(ledger.values()),
        List.copyOf(rejected),
        List.copyOf(duplicates),
        List.copyOf(invalidations),
        List.copyOf(superseded),
        counts,
        faults);
  }

  private record Outcome(boolean changed, RegionReplica region, Effect effect, ErrorReply error) {
    static Outcome error(String code, String message) {
      return new Outcome(false, null, null, new ErrorReply(code, message));
    }
  }

  private Outcome evaluate(DataNodeRequest request, CommandType type, long term, long now) {
    if (request instanceof DataNodeRequest.Ping) {
      return new Outcome(false, null, null, null);
    }
    if (request instanceof DataNodeRequest.CreateRegion create) {
      RegionReplica existing = regions.get(create.regionId());
      if (existing == null) {
        RegionReplica created =
            new RegionReplica(
                create.regionId(), create.database(), create.kind(), create.role(), 0);
        return new Outcome(true, created, new Effect.PutRegion(created), null);
      }
      if (existing.database().equals(create.database()) && existing.kind() == create.kind()) {
        return new Outcome(false, existing, null, null);
      }
      return Outcome.error(
          DataNodeErrors.REGION_CONFLICT,
          "DataNode "
              + id
              + " already hosts region "
              + existing.regionId()
              + " of database "
              + existing.database()
              + " ("
              + existing.kind()
              + "); cannot create it for database "
              + create.database()
              + " ("
              + create.kind()
              + ")");
    }
    if (request instanceof DataNodeRequest.DeleteRegion delete) {
      RegionReplica existing = regions.get(delete.regionId());
      if (existing == null) {
        return new Outcome(false, null, null, null);
      }
      return new Outcome(true, existing, new Effect.RemoveRegion(existing.regionId()), null);
    }
    if (request instanceof DataNodeRequest.SetRegionRole setRole) {
      RegionReplica existing = regions.get(setRole.regionId());
      if (existing == null) {
        return regionNotFound(type, setRole.regionId());
      }
      if (existing.role() == setRole.role()) {
        return new Outcome(false, existing, null, null);
      }
      RegionReplica changed = existing.withRole(setRole.role());
      return new Outcome(true, changed, new Effect.PutRegion(changed), null);
    }
    if (request instanceof DataNodeRequest.SyncRegion sync) {
      RegionReplica existing = regions.get(sync.regionId());
      if (existing == null) {
        return regionNotFound(type, sync.regionId());
      }
      if (existing.dataVersion() >= sync.dataVersion()) {
        return new Outcome(false, existing, null, null);
      }
      RegionReplica changed = existing.withDataVersion(sync.dataVersion());
      return new Outcome(true, changed, new Effect.PutRegion(changed), null);
    }
    if (request instanceof DataNodeRequest.InvalidateCache invalidate) {
      CacheInvalidation entry =
          new CacheInvalidation(
              invalidate.database(), term, invalidate.procId(), invalidate.step(), now);
      return new Outcome(true, null, new Effect.Invalidate(entry), null);
    }
    throw new IllegalArgumentException("unknown request " + request);
  }

  private Outcome regionNotFound(CommandType type, int regionId) {
    return Outcome.error(
        DataNodeErrors.REGION_NOT_FOUND,
        "DataNode "
            + id
            + " hosts no region "
            + regionId
            + "; "
            + type.commandName()
            + " needs it");
  }

  private void applyEffect(Effect effect) {
    if (effect == null) {
      return;
    }
    if (effect instanceof Effect.PutRegion put) {
      regions.put(put.region().regionId(), put.region());
    } else if (effect instanceof Effect.RemoveRegion remove) {
      regions.remove(remove.regionId());
    } else if (effect instanceof Effect.Invalidate inv) {
      addBounded(invalidations, inv.invalidation(), historyCapacity);
    } else {
      throw new IllegalStateException("unknown effect " + effect);
    }
  }

  private void addToLedger(LedgerEntry entry) {
    ledger.put(new LedgerKey(entry.procId(), entry.step()), entry);
    Iterator<LedgerKey> oldest = ledger.keySet().iterator();
    while (ledger.size() > ledgerCapacity) {
      oldest.next();
      oldest.remove();
    }
  }

  private static <T> void addBounded(Deque<T> deque, T item, int capacity) {
    deque.addLast(item);
    while (deque.size() > capacity) {
      deque.removeFirst();
    }
  }
}
