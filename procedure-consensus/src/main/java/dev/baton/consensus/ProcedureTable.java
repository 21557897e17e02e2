package dev.baton.consensus;

import dev.baton.consensus.proto.ActionResult;
import dev.baton.consensus.proto.AuditRecord;
import dev.baton.consensus.proto.ListPage;
import dev.baton.consensus.proto.OperatorActionEntry;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureCodecException;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.ProcedureStateProto;
import dev.baton.procedure.proto.StoreBatchProto;
import dev.baton.procedure.proto.StoreRecordProto;
import dev.baton.procedure.store.RecordParts;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreContents;
import dev.baton.procedure.store.StoreRecord;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import org.apache.ratis.server.protocol.TermIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicated procedure state: procId → serialized record (immutable bytes, never a live
 * procedure object: its head, and its complete {@link RecordParts} if it has any), the nonces of
 * submissions, and the id counter. Changed only by the state machine's apply thread; read by
 * queries and a recovering executor under the same monitor, so every reader sees the state after a
 * whole number of entries. A snapshot holds the monitor only to {@link #freeze} an image
 * (references to the values), and writes it elsewhere.
 */
final class ProcedureTable {
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureTable.class);

  /** First bytes of a snapshot file. */
  static final int SNAPSHOT_MAGIC = 0x4241544e; // "BATN"

  /**
   * Snapshot format version this code writes when a record has parts: each record's bytes are
   * followed by its parts (it also reads every version down to {@link #SNAPSHOT_VERSION_NO_FENCE}).
   */
  static final int SNAPSHOT_VERSION = 5;

  /** The format without records' parts, written while no record has any. */
  static final int SNAPSHOT_VERSION_NO_PARTS = 4;

  /** The format before the audit trail (read as an empty trail). */
  static final int SNAPSHOT_VERSION_NO_AUDIT = 3;

  /** The previous format, without the executor fence (read as no fence). */
  static final int SNAPSHOT_VERSION_NO_FENCE = 2;

  /** The largest record a snapshot may hold; a larger length is corruption. */
  static final int MAX_RECORD_BYTES = 64 << 20;

  private static final int IO_BUFFER_BYTES = 1 << 16;

  private final TreeMap<Long, byte[]> records = new TreeMap<>();

  /** The parts of the records that have any (complete). */
  private final Map<Long, RecordParts> parts = new HashMap<>();

  private final Map<NonceKey, Long> nonces = new HashMap<>();
  private final Map<Long, NonceKey> nonceOf = new HashMap<>();
  private final TreeMap<String, byte[]> metadata = new TreeMap<>();
  private final LiveRoots liveRoots = new LiveRoots();
  private final AuditTrail audit = new AuditTrail();
  private final Observer changed;
  private long maxProcId;
  private long fenceTerm;
  private long fenceEpoch;

  /** Hears each record an applied batch wrote or deleted, under the table's monitor. */
  interface Observer {
    /**
     * Record {@code procId} now holds {@code data} and {@code parts} (complete), or was deleted
     * holding them; must return at once.
     */
    void changed(long procId, byte[] data, RecordParts parts, boolean deleted);
  }

  /** A table nobody watches. */
  ProcedureTable() {
    this((procId, data, parts, deleted) -> {});
  }

  /**
   * @param changed told each record an applied batch wrote or deleted, under the table's monitor
   */
  ProcedureTable(Observer changed) {
    this.changed = changed;
  }

  /** The contents as of now, with the highest id ever allocated or reserved. */
  synchronized StoreContents contents() {
    List<StoreRecord> list = new ArrayList<>(records.size());
    for (Map.Entry<Long, byte[]> e : records.entrySet()) {
      list.add(new StoreRecord(e.getKey(), e.getValue(), partsOf(e.getKey())));
    }
    return new StoreContents(list, maxProcId);
  }

  /** The complete parts of record {@code procId} ({@link RecordParts#NONE} if it has none). */
  synchronized RecordParts partsOf(long procId) {
    return parts.getOrDefault(procId, RecordParts.NONE);
  }

  /** Whether the table holds a record of {@code procId}. */
  synchronized boolean contains(long procId) {
    return records.containsKey(procId);
  }

  /**
   * The record of {@code procId} as a reader sees it (null if none): for a record with parts, its
   * envelope with the whole result ({@link ProcedureCodec#joinParts}), made now.
   */
  synchronized byte[] get(long procId) {
    byte[] head = records.get(procId);
    return head == null ? null : joined(procId, head);
  }

  /** {@code head} joined with the record's parts for readers; a head that does not parse as is. */
  private byte[] joined(long procId, byte[] head) {
    RecordParts recordParts = parts.get(procId);
    if (recordParts == null) {
      return head;
    }
    try {
      return ProcedureCodec.joinParts(procId, head, recordParts);
    } catch (ProcedureCodecException unreadable) {
      return head; // described as corrupt by whoever reads it
    }
  }

  synchronized int size() {
    return records.size();
  }

  synchronized long maxProcId() {
    return maxProcId;
  }

  /**
   * Applies one executor batch in its wire form (see {@link StoreBatch#toProto}): upserts, then
   * deletes (a deleted root frees its nonce). Each record's bytes are copied out of it, so it may
   * alias a log entry's buffer. Every upsert's id is positive and a parts delta changes a record
   * the table holds ({@link CommandApplier} checks).
   */
  synchronized void apply(StoreBatchProto batch) {
    long max = batch.getMaxProcId();
    for (int i = 0; i < batch.getUpsertsCount(); i++) {
      StoreRecordProto r = batch.getUpserts(i);
      byte[] data = r.getData().toByteArray();
      records.put(r.getProcId(), data);
      RecordParts complete = StoreBatch.partsOf(r).applyTo(partsOf(r.getProcId()));
      if (complete.isNone()) {
        parts.remove(r.getProcId());
      } else {
        parts.put(r.getProcId(), complete);
      }
      liveRoots.written(r.getProcId(), data);
      changed.changed(r.getProcId(), data, complete, false);
      max = Math.max(max, r.getProcId());
    }
    for (int i = 0; i < batch.getDeletesCount(); i++) {
      long procId = batch.getDeletes(i);
      byte[] last = records.remove(procId);
      RecordParts lastParts = parts.remove(procId);
      liveRoots.deleted(procId);
      if (last != null) {
        changed.changed(procId, last, lastParts == null ? RecordParts.NONE : lastParts, true);
      }
      NonceKey nonce = nonceOf.remove(procId);
      if (nonce != null) {
        nonces.remove(nonce, procId);
      }
    }
    maxProcId = Math.max(maxProcId, max);
  }

  /**
   * Adds a submitted root under the next id, or returns the id of the earlier submission with the
   * same nonce.
   *
   * @param bytes the submission's encoding, which {@code submission} was parsed from
   * @return the record of the new procedure, or null if the nonce was known (see {@link #procIdOf})
   */
  synchronized StoreRecord submit(ProcedureEnvelope submission, byte[] bytes)
      throws ProcedureCodecException {
    NonceKey nonce = nonceOf(submission);
    if (nonce != null && nonces.containsKey(nonce)) {
      return null;
    }
    long procId = maxProcId + 1;
    byte[] record = ProcedureCodec.assignProcId(submission, bytes, procId);
    maxProcId = procId;
    records.put(procId, record);
    parts.remove(procId);
    liveRoots.submitted(procId);
    if (nonce != null) {
      nonces.put(nonce, procId);
      nonceOf.put(procId, nonce);
    }
    return new StoreRecord(procId, record);
  }

  /** Root procedures submitted that have not finished (see {@link LiveRoots}). */
  synchronized int liveRootCount() {
    return liveRoots.count();
  }

  /** The procedure submitted with {@code nonce}, or 0. */
  synchronized long procIdOf(NonceKey nonce) {
    return nonces.getOrDefault(nonce, 0L);
  }

  /** Applies a metadata change: puts, then deletes. */
  synchronized void applyMetadata(Map<String, byte[]> puts, List<String> deletes) {
    metadata.putAll(puts);
    for (String key : deletes) {
      metadata.remove(key);
    }
  }

  /** Metadata entries whose key starts with {@code prefix}, in key order. */
  synchronized TreeMap<String, byte[]> metadata(String prefix) {
    TreeMap<String, byte[]> out = new TreeMap<>();
    for (Map.Entry<String, byte[]> e : metadata.tailMap(prefix, true).entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  /**
   * Opens the next executor epoch of {@code term} (see the {@code Fence} command): 1 for the first
   * fence of a term, then one more per fence; returns it.
   */
  synchronized long fence(long term) {
    fenceEpoch = fenceTerm == term ? fenceEpoch + 1 : 1;
    fenceTerm = term;
    return fenceEpoch;
  }

  /**
   * Whether a store write of executor incarnation {@code epoch} of {@code term} may apply: any
   * epoch while no fence was opened in that term, else only the epoch of the latest fence.
   */
  synchronized boolean epochCurrent(long term, long epoch) {
    return fenceTerm != term || epoch == fenceEpoch;
  }

  /** The epoch the latest fence opened in {@code term}; 0 if none. */
  synchronized long epochOf(long term) {
    return fenceTerm == term ? fenceEpoch : 0;
  }

  /** Records an operator action entry applied at {@code index} in the audit trail. */
  synchronized void actionRequested(long index, OperatorActionEntry action) {
    audit.requested(index, action);
  }

  /** Records an action's outcome; false if the trail does not hold it undecided. */
  synchronized boolean actionDecided(ActionResult result) {
    return audit.decided(result);
  }

  /** The audit trail, oldest first. */
  synchronized List<AuditRecord> audit() {
    return audit.records();
  }

  /** Reserves {@code count} ids; returns the first. */
  synchronized long reserve(int count) {
    long first = maxProcId + 1;
    maxProcId += count;
    return first;
  }

  static NonceKey nonceOf(ProcedureEnvelope env) {
    return env.hasNonce()
        ? new NonceKey(env.getNonce().getGroup(), env.getNonce().getNonce())
        : null;
  }

  /**
   * A frozen image of the table as of now, including the log position {@code at}: references to the
   * (immutable) values copied in key order, no bytes copied.
   */
  synchronized TableImage freeze(TermIndex at) {
    long[] ids = new long[records.size()];
    byte[][] data = new byte[ids.length][];
    RecordParts[] recordParts = parts.isEmpty() ? null : new RecordParts[ids.length];
    int i = 0;
    for (Map.Entry<Long, byte[]> e : records.entrySet()) {
      if (recordParts != null) {
        recordParts[i] = partsOf(e.getKey());
      }
      ids[i] = e.getKey();
      data[i++] = e.getValue();
    }
    String[] keys = metadata.keySet().toArray(new String[0]);
    byte[][] values = metadata.values().toArray(new byte[0][]);
    return new TableImage(
        at,
        maxProcId,
        fenceTerm,
        fenceEpoch,
        new TableImage.Records(ids, data, recordParts),
        keys,
        values,
        audit.records());
  }

  /** Writes the table in the snapshot format (see {@link TableImage#writeTo}). */
  synchronized void writeSnapshot(OutputStream target) throws IOException {
    freeze(null).writeTo(target);
  }

  /**
   * Replaces the table with a snapshot file's contents.
   *
   * @throws CorruptSnapshotException if the file is not a valid snapshot (the table is unchanged)
   */
  synchronized void loadSnapshot(Path file) throws IOException {
    TreeMap<Long, byte[]> loaded = new TreeMap<>();
    Map<Long, RecordParts> loadedParts = new HashMap<>();
    TreeMap<String, byte[]> loadedMeta = new TreeMap<>();
    long loadedMax;
    long loadedFenceTerm = 0;
    long loadedFenceEpoch = 0;
    List<AuditRecord> loadedAudit = new ArrayList<>();
    try (InputStream raw = Files.newInputStream(file)) {
      CheckedInputStream checked =
          new CheckedInputStream(new BufferedInputStream(raw, IO_BUFFER_BYTES), new CRC32C());
      DataInputStream in = new DataInputStream(checked);
      int magic = in.readInt();
      if (magic != SNAPSHOT_MAGIC) {
        throw new CorruptSnapshotException(file, "not a Baton snapshot (magic " + magic + ")");
      }
      int version = in.readInt();
      if (version != SNAPSHOT_VERSION
          && version != SNAPSHOT_VERSION_NO_PARTS
          && version != SNAPSHOT_VERSION_NO_AUDIT
          && version != SNAPSHOT_VERSION_NO_FENCE) {
        throw new CorruptSnapshotException(
            file,
            "snapshot format version "
                + version
                + ", this node reads "
                + SNAPSHOT_VERSION_NO_FENCE
                + " to "
                + SNAPSHOT_VERSION);
      }
      loadedMax = in.readLong();
      if (version >= SNAPSHOT_VERSION_NO_AUDIT) {
        loadedFenceTerm = in.readLong();
        loadedFenceEpoch = in.readLong();
      }
      int count = in.readInt();
      if (count < 0) {
        throw new CorruptSnapshotException(file, "negative record count " + count);
      }
      for (int i = 0; i < count; i++) {
        long procId = in.readLong();
        int length = in.readInt();
        if (procId <= 0 || length < 0 || length > MAX_RECORD_BYTES) {
          throw new CorruptSnapshotException(
              file, "record " + i + " has id " + procId + " and length " + length);
        }
        byte[] data = new byte[length];
        in.readFully(data);
        loaded.put(procId, data);
        if (version >= SNAPSHOT_VERSION) {
          RecordParts read = readParts(file, procId, in);
          if (!read.isNone()) {
            loadedParts.put(procId, read);
          }
        }
      }
      int metaCount = in.readInt();
      if (metaCount < 0) {
        throw new CorruptSnapshotException(file, "negative metadata count " + metaCount);
      }
      for (int i = 0; i < metaCount; i++) {
        String key = in.readUTF();
        int length = in.readInt();
        if (length < 0 || length > MAX_RECORD_BYTES) {
          throw new CorruptSnapshotException(
              file, "metadata entry " + key + " has length " + length);
        }
        byte[] value = new byte[length];
        in.readFully(value);
        loadedMeta.put(key, value);
      }
      if (version >= SNAPSHOT_VERSION_NO_PARTS) {
        readAudit(file, in, loadedAudit);
      }
      long computed = checked.getChecksum().getValue();
      long stored = in.readLong();
      if (computed != stored) {
        throw new CorruptSnapshotException(
            file,
            "checksum mismatch: stored "
                + Long.toHexString(stored)
                + ", computed "
                + Long.toHexString(computed));
      }
    } catch (EOFException e) {
      throw new CorruptSnapshotException(file, "truncated: " + e.getMessage());
    }
    records.clear();
    records.putAll(loaded);
    parts.clear();
    parts.putAll(loadedParts);
    metadata.clear();
    metadata.putAll(loadedMeta);
    maxProcId = loadedMax;
    fenceTerm = loadedFenceTerm;
    fenceEpoch = loadedFenceEpoch;
    audit.load(loadedAudit);
    rebuildIndexes();
    LOG.info(
        "Loaded procedure snapshot {}: {} procedures, max procId {}",
        file,
        records.size(),
        maxProcId);
  }

  /** Reads a record's parts in a snapshot: a count, then each part's index, length and bytes. */
  private static RecordParts readParts(Path file, long procId, DataInputStream in)
      throws IOException {
    int count = in.readInt();
    if (count < 0 || count > MAX_RECORD_BYTES / Integer.BYTES) {
      throw new CorruptSnapshotException(file, "record " + procId + " has " + count + " parts");
    }
    Map<Integer, byte[]> read = new TreeMap<>();
    for (int i = 0; i < count; i++) {
      int index = in.readInt();
      int length = in.readInt();
      if (index < 0 || length < 0 || length > MAX_RECORD_BYTES) {
        throw new CorruptSnapshotException(
            file, "part " + index + " of record " + procId + " has length " + length);
      }
      byte[] bytes = new byte[length];
      in.readFully(bytes);
      read.put(index, bytes);
    }
    return RecordParts.complete(read);
  }

  /** Reads the audit trail section of a snapshot: a count, then each record's length and bytes. */
  private static void readAudit(Path file, DataInputStream in, List<AuditRecord> into)
      throws IOException {
    int count = in.readInt();
    if (count < 0 || count > AuditTrail.MAX_RECORDS) {
      throw new CorruptSnapshotException(file, "audit trail of " + count + " records");
    }
    for (int i = 0; i < count; i++) {
      int length = in.readInt();
      if (length < 0 || length > MAX_RECORD_BYTES) {
        throw new CorruptSnapshotException(file, "audit record " + i + " has length " + length);
      }
      byte[] bytes = new byte[length];
      in.readFully(bytes);
      try {
        into.add(AuditRecord.parseFrom(bytes));
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        throw new CorruptSnapshotException(file, "audit record " + i + ": " + e.getMessage());
      }
    }
  }

  /** Rebuilds what is derived from the records: the nonce index and the live roots. */
  private void rebuildIndexes() {
    nonces.clear();
    nonceOf.clear();
    liveRoots.clear();
    for (Map.Entry<Long, byte[]> e : records.entrySet()) {
      try {
        ProcedureEnvelope env = ProcedureCodec.parseEnvelope(e.getKey(), e.getValue());
        liveRoots.loaded(env);
        NonceKey nonce = nonceOf(env);
        if (nonce != null) {
          nonces.put(nonce, e.getKey());
          nonceOf.put(e.getKey(), nonce);
        }
      } catch (ProcedureCodecException unreadable) {
        // reported as corrupt by whoever reads it; it holds no nonce anyone can match
      }
    }
  }

  /** Clears everything (before loading a snapshot on a fresh start). */
  synchronized void clear() {
    records.clear();
    parts.clear();
    nonces.clear();
    nonceOf.clear();
    liveRoots.clear();
    metadata.clear();
    audit.clear();
    maxProcId = 0;
    fenceTerm = 0;
    fenceEpoch = 0;
  }

  /**
   * One page of records in id order ({@link ListPage}): those after {@code page.after} that match
   * its filters, at most {@code page.limit} plus one. Only the envelopes of the records scanned are
   * parsed; a record that does not parse matches no filter but none (it is listed as corrupt).
   */
  synchronized Map<Long, byte[]> page(ListPage page) {
    Map<Long, byte[]> out = new LinkedHashMap<>();
    boolean filtered =
        !page.getType().isEmpty()
            || page.getParent() != 0
            || !page.getState().isEmpty()
            || !page.getNotState().isEmpty();
    for (Map.Entry<Long, byte[]> e : records.tailMap(page.getAfter(), false).entrySet()) {
      if (out.size() > page.getLimit()) {
        break;
      }
      if (filtered && !matches(page, e.getKey(), e.getValue())) {
        continue;
      }
      out.put(e.getKey(), joined(e.getKey(), e.getValue()));
    }
    return out;
  }

  private static boolean matches(ListPage page, long procId, byte[] data) {
    ProcedureEnvelope env;
    try {
      env = ProcedureCodec.parseEnvelope(procId, data);
    } catch (ProcedureCodecException e) {
      return false;
    }
    String state = ProcedureStateProto.forNumber(env.getStateValue()).name();
    return (page.getType().isEmpty() || page.getType().equals(env.getType()))
        && (page.getParent() == 0 || page.getParent() == env.getParentProcId())
        && (page.getState().isEmpty() || page.getState().equals(state))
        && (page.getNotState().isEmpty() || !page.getNotState().equals(state));
  }

  /** A copy of the records by id as readers see them ({@link #get}). */
  synchronized Map<Long, byte[]> copy() {
    Map<Long, byte[]> out = new HashMap<>();
    for (Map.Entry<Long, byte[]> e : records.entrySet()) {
      out.put(e.getKey(), joined(e.getKey(), e.getValue()));
    }
    return out;
  }
}
