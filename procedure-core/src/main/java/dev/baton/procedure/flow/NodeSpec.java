package dev.baton.procedure.flow;

import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One task node of a flow: a name unique in its flow, a task type registered with {@link
 * FlowRuntime#task}, its arguments, a trigger, a failure policy and retries with exponential
 * backoff. Build with {@link #of} and the {@code with...} methods.
 *
 * @param maxRetries extra attempts after the first failure before the failure policy applies
 * @param backoffMillis wait before the first retry; doubled for each further retry
 */
public record NodeSpec(
    String name,
    String taskType,
    Map<String, String> args,
    Trigger trigger,
    FailurePolicy failurePolicy,
    int maxRetries,
    long backoffMillis) {
  /** Longest node name. */
  public static final int MAX_NAME_LENGTH = 100;

  /** Most retries a node may ask for. */
  public static final int MAX_RETRIES = 1000;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]*");

  public NodeSpec {
    if (name == null || name.length() > MAX_NAME_LENGTH || !NAME.matcher(name).matches()) {
      throw new InvalidFlowException(
          "node name must match "
              + NAME.pattern()
              + " and be at most "
              + MAX_NAME_LENGTH
              + " characters, got '"
              + name
              + "'");
    }
    if (taskType == null || taskType.isEmpty()) {
      throw new InvalidFlowException("node '" + name + "' has no task type");
    }
    args = Map.copyOf(args == null ? Map.of() : args);
    Objects.requireNonNull(trigger, "trigger");
    Objects.requireNonNull(failurePolicy, "failurePolicy");
    if (maxRetries < 0 || maxRetries > MAX_RETRIES) {
      throw new InvalidFlowException(
          "node '" + name + "': retries must be 0.." + MAX_RETRIES + ", got " + maxRetries);
    }
    if (backoffMillis < 0) {
      throw new InvalidFlowException(
          "node '" + name + "': backoff must be >= 0 ms, got " + backoffMillis);
    }
  }

  /** A node with no arguments, all-parents-succeeded trigger, SUSPEND policy and no retries. */
  public static NodeSpec of(String name, String taskType) {
    return new NodeSpec(
        name, taskType, Map.of(), Trigger.allSucceeded(), FailurePolicy.SUSPEND, 0, 0);
  }

  public NodeSpec withArgs(Map<String, String> a) {
    return new NodeSpec(name, taskType, a, trigger, failurePolicy, maxRetries, backoffMillis);
  }

  public NodeSpec withTrigger(Trigger t) {
    return new NodeSpec(name, taskType, args, t, failurePolicy, maxRetries, backoffMillis);
  }

  public NodeSpec onFailure(FailurePolicy p) {
    return new NodeSpec(name, taskType, args, trigger, p, maxRetries, backoffMillis);
  }

  public NodeSpec withRetries(int retries, long backoff) {
    return new NodeSpec(name, taskType, args, trigger, failurePolicy, retries, backoff);
  }
}
