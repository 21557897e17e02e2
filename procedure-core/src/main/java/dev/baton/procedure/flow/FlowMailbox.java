package dev.baton.procedure.flow;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The in-memory hand-over between command procedures and flow procedures of one executor. Not
 * durable by itself: a command posts again after a restart until the flow has published its
 * outcome, and the flow remembers (durably) which commands it applied.
 */
final class FlowMailbox {
  private final Map<Long, Queue<FlowCommand>> inbox = new ConcurrentHashMap<>();
  private final Map<Long, String> outcomes = new ConcurrentHashMap<>();
  private final Map<Long, Queue<Long>> finishedTasks = new ConcurrentHashMap<>();

  /** A task of the flow reached its terminal state (reported by the executor's completion). */
  void reportFinished(long flowId, long taskId) {
    finishedTasks.computeIfAbsent(flowId, id -> new ConcurrentLinkedQueue<>()).add(taskId);
  }

  /** The tasks of a flow reported finished since the last call. */
  List<Long> drainFinished(long flowId) {
    Queue<Long> q = finishedTasks.get(flowId);
    List<Long> out = new ArrayList<>();
    if (q != null) {
      for (Long t = q.poll(); t != null; t = q.poll()) {
        out.add(t);
      }
    }
    return out;
  }

  /** The flow finished: drop what was kept for it. */
  void forgetFlow(long flowId) {
    inbox.remove(flowId);
    finishedTasks.remove(flowId);
  }

  void post(FlowCommand c) {
    inbox.computeIfAbsent(c.flowId(), id -> new ConcurrentLinkedQueue<>()).add(c);
  }

  /** Takes the posted commands of a flow, in posting order. */
  List<FlowCommand> drain(long flowId) {
    Queue<FlowCommand> q = inbox.get(flowId);
    List<FlowCommand> out = new ArrayList<>();
    if (q != null) {
      for (FlowCommand c = q.poll(); c != null; c = q.poll()) {
        out.add(c);
      }
    }
    return out;
  }

  /** The flow applied the command and persisted that: its outcome ("" = done, else refusal). */
  void publish(long commandId, String outcome) {
    outcomes.put(commandId, outcome);
  }

  /** The published outcome of a command, or null; removed once taken. */
  String takeOutcome(long commandId) {
    return outcomes.remove(commandId);
  }

  void forget(long commandId) {
    outcomes.remove(commandId);
  }
}
