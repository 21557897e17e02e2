package dev.baton.procedure.flow;

import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What flows need besides the store: the task types a node may name (each a registered procedure
 * type with a factory taking the node's arguments), the custom trigger predicates, and the executor
 * that runs the flows (the one executor, or the current leader's in a cluster).
 *
 * <p>Creating a runtime registers the flow procedure types ({@value #FLOW_TYPE}, {@value
 * #COMMAND_TYPE}) in the registry; use one runtime per registry.
 *
 * @param <Env> the environment of the executor
 */
public final class FlowRuntime<Env> {
  /** Procedure type of a flow. */
  public static final String FLOW_TYPE = "baton.flow";

  /** Procedure type of an operator command (resume, append) on a flow. */
  public static final String COMMAND_TYPE = "baton.flow.command";

  /**
   * How often a flow with running tasks, or a command, checks for progress it was not woken for (a
   * safety net: task completions and applied commands wake them). An idle flow does not poll.
   */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(2);

  /**
   * How many finished nodes at the head of a stream flow stay listed in its view before older ones
   * are folded into the stream's summary (counts and their names, which stay taken).
   */
  public static final int DEFAULT_KEPT_FINISHED_STREAM_NODES = 1_000;

  /** The longest pause before a failed node's next attempt, however its backoff doubled. */
  static final Duration MAX_RETRY_BACKOFF = Duration.ofMinutes(10);

  private final ProcedureRegistry registry;
  private final Map<String, Function<Map<String, String>, Procedure<Env>>> tasks =
      new ConcurrentHashMap<>();
  private final Map<String, Predicate<Map<String, NodeState>>> predicates =
      new ConcurrentHashMap<>();
  private volatile Supplier<Optional<ProcedureExecutor<Env>>> executor = Optional::empty;
  private volatile long pollMillis = DEFAULT_POLL_INTERVAL.toMillis();
  private volatile int keptFinishedStreamNodes = DEFAULT_KEPT_FINISHED_STREAM_NODES;
  private final FlowMailbox mailbox = new FlowMailbox();

  @SuppressWarnings({"unchecked", "rawtypes"})
  public FlowRuntime(ProcedureRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
    registry.register(FLOW_TYPE, (Class) FlowProcedure.class, () -> new FlowProcedure<>(this));
    registry.register(
        COMMAND_TYPE, (Class) FlowCommandProcedure.class, () -> new FlowCommandProcedure<>(this));
  }

  /** The in-memory hand-over between this runtime's command procedures and flow procedures. */
  FlowMailbox mailbox() {
    return mailbox;
  }

  /**
   * Makes {@code type} usable as a node's task type.
   *
   * @param factory builds the task procedure from the node's arguments; may throw {@link
   *     IllegalArgumentException} for bad arguments (the attempt then fails)
   * @throws IllegalArgumentException if {@code type} is not registered in the registry
   */
  public FlowRuntime<Env> task(String type, Function<Map<String, String>, Procedure<Env>> factory) {
    if (!registry.isRegistered(type)) {
      throw new IllegalArgumentException(
          "task type '" + type + "' is not a registered procedure type; register it first");
    }
    tasks.put(type, Objects.requireNonNull(factory, "factory"));
    return this;
  }

  /** Registers a custom trigger predicate, given the parents' states by name. */
  public FlowRuntime<Env> predicate(String id, Predicate<Map<String, NodeState>> p) {
    predicates.put(Objects.requireNonNull(id, "id"), Objects.requireNonNull(p, "predicate"));
    return this;
  }

  /** Binds the runtime to one executor. */
  public FlowRuntime<Env> bind(ProcedureExecutor<Env> ex) {
    Objects.requireNonNull(ex, "executor");
    return bind(() -> Optional.of(ex));
  }

  /** Binds the runtime to whatever executor runs now (e.g. a cluster node's leader executor). */
  public FlowRuntime<Env> bind(Supplier<Optional<ProcedureExecutor<Env>>> current) {
    this.executor = Objects.requireNonNull(current, "current");
    return this;
  }

  /** How often waiting flows and commands poll for progress they were not woken for. */
  public FlowRuntime<Env> pollInterval(Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("poll interval must be > 0, got " + d);
    }
    this.pollMillis = d.toMillis();
    return this;
  }

  /**
   * How many finished nodes at the head of a stream stay listed (see {@link
   * #DEFAULT_KEPT_FINISHED_STREAM_NODES}); older ones are folded, so a long stream's record and
   * step cost stay bounded.
   */
  public FlowRuntime<Env> keptFinishedStreamNodes(int nodes) {
    if (nodes < 0) {
      throw new IllegalArgumentException("kept finished stream nodes must be >= 0, got " + nodes);
    }
    this.keptFinishedStreamNodes = nodes;
    return this;
  }

  int keptFinishedStreamNodes() {
    return keptFinishedStreamNodes;
  }

  /** Whether {@code type} may be named by a node. */
  public boolean hasTask(String type) {
    return tasks.containsKey(type);
  }

  public boolean hasPredicate(String id) {
    return predicates.containsKey(id);
  }

  Optional<ProcedureExecutor<Env>> executor() {
    return executor.get();
  }

  long pollMillis() {
    return pollMillis;
  }

  Predicate<Map<String, NodeState>> predicateOf(String id) {
    return predicates.get(id);
  }

  /** A new task procedure for a node. */
  Procedure<Env> newTask(NodeSpec spec) {
    Function<Map<String, String>, Procedure<Env>> f = tasks.get(spec.taskType());
    if (f == null) {
      throw new InvalidFlowException("unknown task type '" + spec.taskType() + "'");
    }
    return Objects.requireNonNull(f.apply(spec.args()), "task factory of " + spec.taskType());
  }

  /**
   * Checks that every node names a known task type and known predicates.
   *
   * @throws InvalidFlowException naming the first unknown one
   */
  void checkKnown(Iterable<NodeSpec> nodes) {
    for (NodeSpec n : nodes) {
      if (!hasTask(n.taskType())) {
        throw new InvalidFlowException(
            "node '" + n.name() + "' names unknown task type '" + n.taskType() + "'");
      }
      Trigger t = n.trigger();
      if (t.kind() == Trigger.Kind.CUSTOM && !hasPredicate(t.predicateId())) {
        throw new InvalidFlowException(
            "node '" + n.name() + "' names unknown trigger predicate '" + t.predicateId() + "'");
      }
    }
  }
}
