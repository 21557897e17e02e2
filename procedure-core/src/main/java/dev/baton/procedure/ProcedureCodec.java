package dev.baton.procedure;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import dev.baton.procedure.proto.FailureProto;
import dev.baton.procedure.proto.NonceProto;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.ProcedureStateProto;
import dev.baton.procedure.store.RecordParts;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * Turns procedures into stored records and back: a protobuf {@link ProcedureEnvelope} for the
 * framework's fields plus the procedure's own state bytes. Types come only from the registry. Every
 * record carries its format version ({@link #FORMAT_VERSION}); a record of a newer one is refused
 * with an error that names it (recovery reports such a procedure as corrupt and keeps its record).
 */
public final class ProcedureCodec {
  /**
   * The format of the records this code writes, in {@code ProcedureEnvelope.format_version}; it
   * reads this one and every older one (0, absent, is format 1, written before the field existed).
   */
  public static final int FORMAT_VERSION = 1;

  private final ProcedureRegistry registry;

  public ProcedureCodec(ProcedureRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** The registry this codec reads types from. */
  public ProcedureRegistry registry() {
    return registry;
  }

  /** Encodes {@code proc}; its type must be registered. */
  public byte[] encode(Procedure<?> proc) throws IOException {
    return toEnvelope(proc, 0).toByteArray();
  }

  /** Encodes {@code proc} stamped with the executor term that writes it. */
  public byte[] encode(Procedure<?> proc, long term) throws IOException {
    return toEnvelope(proc, term).toByteArray();
  }

  ProcedureEnvelope toEnvelope(Procedure<?> proc, long term) throws IOException {
    String type = proc.getType();
    if (type == null) {
      type =
          registry
              .typeOf(proc)
              .orElseThrow(
                  () -> new UnknownProcedureTypeException(proc.getClass().getName() + " (class)"));
      proc.setType(type);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      proc.writeState(out);
    }
    ProcedureEnvelope.Builder b =
        ProcedureEnvelope.newBuilder()
            .setProcId(proc.getProcId())
            .setParentProcId(proc.getParentProcId())
            .setRootProcId(proc.getRootProcId())
            .setType(type)
            .setState(ProcedureStateProto.forNumber(proc.getState().ordinal() + 1))
            .setSubmittedTime(proc.getSubmittedTime())
            .setLastUpdate(proc.getLastUpdate())
            .setTimeoutMillis(proc.getTimeout())
            .setWaitDeadline(proc.stored().getWaitDeadline())
            .setLockHeld(proc.stored().isLockHeld())
            .setAbortRequested(proc.isAbortRequested())
            .setPendingChildren(proc.stored().getPendingChildren())
            .setTerm(term)
            .setFormatVersion(FORMAT_VERSION)
            // a fresh array nobody else holds: wrapped, not copied again
            .setStateData(UnsafeByteOperations.unsafeWrap(bytes.toByteArray()));
    for (int index : proc.stored().getStackIndexes()) {
      b.addStackIndexes(index);
    }
    ProcedureFailure f = proc.getFailure();
    if (f != null) {
      b.setFailure(
          FailureProto.newBuilder()
              .setSource(f.source())
              .setMessage(f.message())
              .setCauseType(f.causeType())
              .setAborted(f.aborted()));
    }
    byte[] result = proc.getResultBytes();
    if (result != null) {
      // a procedure's result array is replaced, never changed (Procedure#setResult copies what it
      // is given): wrapped, not copied again
      b.setResult(UnsafeByteOperations.unsafeWrap(result));
    }
    NonceKey nonce = proc.stored().getNonceKey();
    if (nonce != null) {
      b.setNonce(NonceProto.newBuilder().setGroup(nonce.group()).setNonce(nonce.nonce()));
    }
    String stepName = proc.getStepName();
    if (stepName != null) {
      b.setStepName(stepName);
    }
    return b.build();
  }

  /**
   * Encodes a new root procedure for a submission that gets its id later, when a replicated state
   * machine applies it ({@link #assignProcId}). The procedure must not have been submitted before.
   *
   * @throws UnknownProcedureTypeException if its type is not registered
   */
  public byte[] encodeSubmission(Procedure<?> proc, NonceKey nonce, long submittedTime)
      throws IOException {
    if (proc.getProcId() != 0 || proc.getState() != ProcedureState.INITIALIZING) {
      throw new IllegalArgumentException(proc + " was already submitted");
    }
    proc.setType(
        registry
            .typeOf(proc)
            .orElseThrow(
                () -> new UnknownProcedureTypeException(proc.getClass().getName() + " (class)")));
    if (nonce != null) {
      proc.stored().setNonceKey(nonce);
    }
    proc.setParent(Procedure.NO_PARENT, 0);
    proc.setSubmittedTime(submittedTime);
    proc.setLastUpdate(submittedTime);
    proc.transitionTo(ProcedureState.RUNNABLE);
    return toEnvelope(proc, 0).toByteArray();
  }

  /**
   * The record of a submission ({@link #encodeSubmission}) under its assigned id: the procedure is
   * the root of its own tree.
   */
  public static byte[] assignProcId(byte[] submission, long procId) throws ProcedureCodecException {
    return assignProcId(parseEnvelope(0, submission), submission, procId);
  }

  /**
   * The same for a submission parsed already ({@link #parseEnvelope} with id 0; a state machine
   * applying many submissions parses each once): its bytes with the ids appended as two more
   * fields. Protobuf lets a field appear again, the last value winning, so the record parses as the
   * submission with its ids set, and every member of a cluster makes the same bytes without
   * rebuilding and encoding the envelope again.
   */
  public static byte[] assignProcId(ProcedureEnvelope env, byte[] submission, long procId)
      throws ProcedureCodecException {
    if (env.getParentProcId() != Procedure.NO_PARENT
        || env.getStateValue() != ProcedureState.RUNNABLE.ordinal() + 1) {
      throw new ProcedureCodecException("not a new root submission: " + env.getType());
    }
    int ids =
        CodedOutputStream.computeInt64Size(ProcedureEnvelope.PROC_ID_FIELD_NUMBER, procId)
            + CodedOutputStream.computeInt64Size(
                ProcedureEnvelope.ROOT_PROC_ID_FIELD_NUMBER, procId);
    byte[] record = Arrays.copyOf(submission, submission.length + ids);
    CodedOutputStream out = CodedOutputStream.newInstance(record, submission.length, ids);
    try {
      out.writeInt64(ProcedureEnvelope.PROC_ID_FIELD_NUMBER, procId);
      out.writeInt64(ProcedureEnvelope.ROOT_PROC_ID_FIELD_NUMBER, procId);
      out.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("ids of procedure " + procId + " did not fit", e);
    }
    return record;
  }

  /** Parses the framework envelope of a stored record. */
  public static ProcedureEnvelope parseEnvelope(long procId, byte[] data)
      throws ProcedureCodecException {
    ProcedureEnvelope env;
    try {
      env = ProcedureEnvelope.parseFrom(data);
    } catch (InvalidProtocolBufferException e) {
      throw new ProcedureCodecException(
          "record of procedure " + procId + " is not a valid envelope: " + e.getMessage(), e);
    }
    if (env.getFormatVersion() > FORMAT_VERSION) {
      throw new ProcedureCodecException(
          "record of procedure "
              + procId
              + " has format version "
              + env.getFormatVersion()
              + ", newer than this build reads (up to "
              + FORMAT_VERSION
              + "): a newer Baton wrote it; run that version (the record is kept)");
    }
    if (env.getProcId() != procId) {
      throw new ProcedureCodecException(
          "record stored under procedure " + procId + " names procedure " + env.getProcId());
    }
    if (env.getStateValue() < 1 || env.getStateValue() > ProcedureState.values().length) {
      throw new ProcedureCodecException(
          "record of procedure " + procId + " has unknown state number " + env.getStateValue());
    }
    return env;
  }

  /**
   * The record as a reader that knows no parts sees it: {@code data} itself for a record without
   * parts, else its envelope with the result the head's result followed by the parts (complete) in
   * index order. Costs the size of the result: for readers, never per step.
   */
  public static byte[] joinParts(long procId, byte[] data, RecordParts parts)
      throws ProcedureCodecException {
    if (parts.isNone()) {
      return data;
    }
    ProcedureEnvelope env = parseEnvelope(procId, data);
    byte[] head = env.hasResult() ? env.getResult().toByteArray() : null;
    byte[] joined = ResultBytes.join(head, parts);
    return env.toBuilder().setResult(UnsafeByteOperations.unsafeWrap(joined)).build().toByteArray();
  }

  /** The client view of a stored record, read from the envelope only (no type needed). */
  public static ProcedureInfo toInfo(ProcedureEnvelope env, String stepName) {
    return toInfo(env, stepName, true);
  }

  private static ProcedureInfo toInfo(ProcedureEnvelope env, String stepName, boolean withResult) {
    ProcedureState state = stateOf(env);
    String failure = null;
    if (env.hasFailure()) {
      FailureProto f = env.getFailure();
      failure =
          new ProcedureFailure(f.getSource(), f.getMessage(), f.getCauseType(), f.getAborted())
              .describe();
    }
    return new ProcedureInfo(
        env.getProcId(),
        env.getParentProcId(),
        env.getRootProcId(),
        env.getType(),
        state,
        stepName,
        env.getSubmittedTime(),
        env.getLastUpdate(),
        withResult && env.hasResult() ? env.getResult().toByteArray() : null,
        failure);
  }

  static ProcedureState stateOf(ProcedureEnvelope env) {
    return ProcedureState.values()[env.getStateValue() - 1];
  }

  /**
   * Checks a submission ({@link #encodeSubmission}) as the executor will read it: a valid envelope
   * without an id, of a registered type, whose state decodes.
   *
   * @throws ProcedureCodecException saying what is wrong
   */
  public void checkSubmission(byte[] submission) throws ProcedureCodecException {
    ProcedureEnvelope env = parseEnvelope(0, submission);
    if (env.getParentProcId() != Procedure.NO_PARENT || env.getRootProcId() != 0) {
      throw new ProcedureCodecException(
          "a submission is a new root procedure; it names parent "
              + env.getParentProcId()
              + " and root "
              + env.getRootProcId());
    }
    decode(0, submission);
  }

  /**
   * Decodes a stored record into a live procedure.
   *
   * @throws UnknownProcedureTypeException if its type is not registered
   * @throws ProcedureCodecException if the record or the procedure's own state cannot be read
   */
  public Procedure<?> decode(long procId, byte[] data) throws ProcedureCodecException {
    return decode(procId, data, RecordParts.NONE);
  }

  /**
   * Decodes a stored record with its complete parts into a live procedure: the procedure reads its
   * whole result with {@link Procedure#getJoinedResult} while its state is read back.
   *
   * @throws UnknownProcedureTypeException if its type is not registered
   * @throws ProcedureCodecException if the record or the procedure's own state cannot be read
   */
  public Procedure<?> decode(long procId, byte[] data, RecordParts parts)
      throws ProcedureCodecException {
    if (!parts.isComplete()) {
      throw new IllegalArgumentException("a record decodes with its complete parts, not a delta");
    }
    ProcedureEnvelope env = parseEnvelope(procId, data);
    Procedure<?> proc = registry.newInstance(env.getType());
    proc.setProcId(env.getProcId());
    proc.setParent(env.getParentProcId(), env.getRootProcId());
    proc.restoreState(stateOf(env));
    proc.setSubmittedTime(env.getSubmittedTime());
    proc.setLastUpdate(env.getLastUpdate());
    proc.setTimeoutMillis(env.getTimeoutMillis());
    proc.stored().setWaitDeadline(env.getWaitDeadline());
    proc.stored().setLockHeld(env.getLockHeld());
    proc.setAbortRequested(env.getAbortRequested());
    proc.stored().setPendingChildren(env.getPendingChildren());
    int[] indexes = new int[env.getStackIndexesCount()];
    for (int i = 0; i < indexes.length; i++) {
      indexes[i] = env.getStackIndexes(i);
    }
    proc.stored().setStackIndexes(indexes);
    if (env.hasFailure()) {
      FailureProto f = env.getFailure();
      proc.setFailureRecord(
          new ProcedureFailure(f.getSource(), f.getMessage(), f.getCauseType(), f.getAborted()));
    }
    if (env.hasResult()) {
      proc.setResultBytes(env.getResult().toByteArray());
    }
    proc.recoveredParts(parts);
    if (env.hasNonce()) {
      proc.stored().setNonceKey(new NonceKey(env.getNonce().getGroup(), env.getNonce().getNonce()));
    }
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(env.getStateData().toByteArray()))) {
      proc.readState(in);
    } catch (IOException | RuntimeException | OutOfMemoryError e) {
      // an OutOfMemoryError here is an allocation sized by the record (a forged or corrupt length
      // that no check caught): it fails this record only, like any other unreadable state
      throw new ProcedureCodecException(
          "state of procedure "
              + procId
              + " (type '"
              + env.getType()
              + "') cannot be read: "
              + e.getMessage(),
          e);
    }
    return proc;
  }

  /**
   * The client view of a stored record. A record that cannot be decoded (unknown type, unreadable
   * state) is described as corrupt: FAILED, with the reason as its failure.
   */
  public ProcedureInfo describe(long procId, byte[] data) {
    return describe(procId, data, RecordParts.NONE);
  }

  /** The same for a record with its complete parts. */
  public ProcedureInfo describe(long procId, byte[] data, RecordParts parts) {
    try {
      return decode(procId, data, parts).toInfo();
    } catch (ProcedureCodecException e) {
      ProcedureEnvelope env = null;
      try {
        env = parseEnvelope(procId, data);
      } catch (ProcedureCodecException unreadable) {
        // nothing more to report than the reason
      }
      return corruptInfo(procId, env, e.getMessage());
    }
  }

  /**
   * The client view of a stored record without its result, for readers that follow every change
   * (the events of each applied write): from the envelope alone when it names its step and its type
   * is registered, so it costs the envelope, never the procedure's state or parts (a flow's graph);
   * else as {@link #describe}. A record whose state no longer reads shows as stored here, and as
   * corrupt once read whole.
   */
  public ProcedureInfo summarize(long procId, byte[] data, RecordParts parts) {
    ProcedureEnvelope env;
    try {
      env = parseEnvelope(procId, data);
    } catch (ProcedureCodecException unreadable) {
      return corruptInfo(procId, null, unreadable.getMessage());
    }
    if (!env.hasStepName() || !registry.isRegistered(env.getType())) {
      return describe(procId, data, parts);
    }
    return toInfo(env, env.getStepName(), false);
  }

  /** The view of a record that cannot be decoded: FAILED and finished, with the reason. */
  static ProcedureInfo corruptInfo(long procId, ProcedureEnvelope env, String reason) {
    String failure = "corrupt record: " + reason;
    if (env == null) {
      return new ProcedureInfo(
          procId,
          Procedure.NO_PARENT,
          procId,
          null,
          ProcedureState.FAILED,
          null,
          0,
          0,
          null,
          failure,
          true);
    }
    return new ProcedureInfo(
        procId,
        env.getParentProcId(),
        env.getRootProcId(),
        env.getType(),
        ProcedureState.FAILED,
        null,
        env.getSubmittedTime(),
        env.getLastUpdate(),
        null,
        failure,
        true);
  }
}
