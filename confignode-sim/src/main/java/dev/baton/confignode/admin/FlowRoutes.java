package dev.baton.confignode.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.metrics.NodeMetrics;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.consensus.AuditEntry;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.flow.FailurePolicy;
import dev.baton.procedure.flow.FlowDefinition;
import dev.baton.procedure.flow.FlowGateway;
import dev.baton.procedure.flow.FlowInfo;
import dev.baton.procedure.flow.FlowRuntime;
import dev.baton.procedure.flow.Flows;
import dev.baton.procedure.flow.InvalidFlowException;
import dev.baton.procedure.flow.NodeSpec;
import dev.baton.procedure.flow.ResumeAction;
import dev.baton.procedure.flow.Trigger;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;

/**
 * The workflow routes of the admin API:
 *
 * <ul>
 *   <li>{@code POST /api/flows} with {@code {nodes:[{name, type, args?, trigger?, onFailure?,
 *       retries?, backoffMillis?}], edges:[{parent, child}]}} → {@code {flowId}}
 *   <li>{@code GET /api/flows/{id}} → the flow with all its nodes
 *   <li>{@code POST /api/flows/{id}/nodes/{node}/resume} with {@code {reason, action?, dryRun?}}
 *       ({@code action} RERUN, MARK_SUCCEEDED or MARK_FAILED; default RERUN): an operator action. A
 *       missing or blank reason is a 400, an unknown flow or node a 404. {@code dryRun: true}
 *       answers the {@link FlowResumePlan} and changes nothing. Otherwise a refused resume (a
 *       finished flow, a node that is not PENDING) is a 409 {@value ActionRoutes#REFUSED}, and a
 *       resume goes to the flow as a durable command; either way the outcome is recorded in the
 *       replicated audit trail ({@link ProcedureNode#recordResume}: principal, reason, time) and a
 *       resume is answered {@code {flow, audit}}.
 * </ul>
 *
 * Node types are the ConfigNode procedure types; {@code args} are that type's JSON arguments.
 */
public final class FlowRoutes implements AdminRoutes {
  /** Node argument holding the task's JSON arguments as text. */
  static final String JSON_ARG = "json";

  /** The operator action of a node resume, as metrics count it. */
  static final String RESUME = "resume";

  record TriggerRequest(Trigger.Kind kind, Integer count, List<String> parents, String predicate) {}

  record NodeRequest(
      String name,
      String type,
      JsonNode args,
      TriggerRequest trigger,
      FailurePolicy onFailure,
      Integer retries,
      Long backoffMillis) {}

  record EdgeRequest(String parent, String child) {}

  record FlowRequest(List<NodeRequest> nodes, List<EdgeRequest> edges) {}

  /**
   * A resume's request.
   *
   * @param reason why the operator resumes the node, required
   * @param action how; RERUN when absent
   * @param dryRun only answer what the resume would change
   */
  record ResumeRequest(String reason, ResumeAction action, Boolean dryRun) {}

  /** A resume's request when it came without a body. */
  private static final ResumeRequest NO_BODY = new ResumeRequest(null, null, null);

  private final ProcedureNode<ConfigNodeEnv> node;
  private final FlowGateway<ConfigNodeEnv> gateway;
  private final Flows<ConfigNodeEnv> flows;
  private final NodeMetrics metrics;

  /**
   * Flow routes over {@code gateway}, the node's way to submit and read procedures (any node
   * forwards to the leader); resumes are recorded in {@code node}'s audit trail and counted in
   * {@code metrics}.
   */
  public FlowRoutes(
      ProcedureNode<ConfigNodeEnv> node,
      FlowGateway<ConfigNodeEnv> gateway,
      FlowRuntime<ConfigNodeEnv> runtime,
      Duration wait,
      NodeMetrics metrics) {
    this.node = node;
    this.gateway = gateway;
    this.flows = new Flows<>(runtime, gateway, wait);
    this.metrics = metrics;
  }

  /** A flow runtime on {@code registry} whose task types are the ConfigNode procedure types. */
  public static FlowRuntime<ConfigNodeEnv> runtime(ProcedureRegistry registry) {
    FlowRuntime<ConfigNodeEnv> runtime = new FlowRuntime<>(registry);
    for (String type : ConfigNodeProcedures.registry().types()) {
      runtime.task(type, args -> ConfigNodeProcedures.create(type, json(args.get(JSON_ARG))));
    }
    return runtime;
  }

  @Override
  public List<Endpoint> endpoints() {
    return List.of(
        Endpoint.post(
            "/api/flows",
            "submit a workflow {nodes: [{name, type, args?, trigger?, onFailure?, retries?,"
                + " backoffMillis?}], edges: [{parent, child}]} → {flowId}",
            req -> {
              long flowId = submit(req);
              req.target("flow " + flowId);
              return Map.of("flowId", flowId);
            }),
        Endpoint.get(
            "/api/flows/{id}",
            "a workflow with all its nodes",
            req -> view(ProcedureRoutes.procId(req.segment(1)))),
        Endpoint.post(
            "/api/flows/{id}/nodes/{node}/resume",
            "resume a PENDING node of a workflow {reason, action?: RERUN | MARK_SUCCEEDED |"
                + " MARK_FAILED, dryRun?} → {flow, audit}, or with dryRun the plan (409 when"
                + " refused)",
            req -> {
              long id = ProcedureRoutes.procId(req.segment(1));
              String node = req.segment(3);
              req.target("flow " + id + " node " + node);
              return resume(req, id, node);
            }));
  }

  private long submit(AdminRequest request) throws HttpError, IOException {
    FlowRequest req =
        JsonExchange.parse(request.body(ProcedureRoutes.MAX_BODY_BYTES), FlowRequest.class);
    if (req.nodes() == null || req.nodes().isEmpty()) {
      throw bad("missing required field 'nodes' (a non-empty list)");
    }
    try {
      FlowDefinition.Builder b = FlowDefinition.builder();
      for (NodeRequest n : req.nodes()) {
        b.node(spec(n));
      }
      for (EdgeRequest e : req.edges() == null ? List.<EdgeRequest>of() : req.edges()) {
        if (e == null || e.parent() == null || e.child() == null) {
          throw bad("an edge needs 'parent' and 'child'");
        }
        b.edge(e.parent(), e.child());
      }
      return flows.submit(b.build());
    } catch (IllegalArgumentException e) { // InvalidFlowException, bad task arguments
      throw bad(e.getMessage());
    }
  }

  private static NodeSpec spec(NodeRequest n) throws HttpError {
    if (n == null || n.name() == null || n.type() == null) {
      throw bad("a node needs 'name' and 'type'");
    }
    JsonNode args = n.args() == null ? NullNode.instance : n.args();
    ConfigNodeProcedures.create(n.type(), args); // bad type or arguments: refused now
    NodeSpec spec = NodeSpec.of(n.name(), n.type()).withArgs(Map.of(JSON_ARG, args.toString()));
    if (n.trigger() != null) {
      spec = spec.withTrigger(trigger(n.trigger()));
    }
    if (n.onFailure() != null) {
      spec = spec.onFailure(n.onFailure());
    }
    if (n.retries() != null || n.backoffMillis() != null) {
      spec =
          spec.withRetries(
              n.retries() == null ? 0 : n.retries(),
              n.backoffMillis() == null ? 0 : n.backoffMillis());
    }
    return spec;
  }

  private static Trigger trigger(TriggerRequest t) throws HttpError {
    if (t.kind() == null) {
      throw bad("a trigger needs 'kind': one of " + List.of(Trigger.Kind.values()));
    }
    Set<String> parents = new TreeSet<>(t.parents() == null ? List.of() : t.parents());
    return new Trigger(t.kind(), t.count() == null ? 0 : t.count(), parents, t.predicate());
  }

  private FlowInfo view(long id) throws HttpError {
    return Flows.view(flowInfo(id));
  }

  private ProcedureInfo flowInfo(long id) throws HttpError {
    Optional<ProcedureInfo> info = gateway.getInfo(id);
    if (info.isEmpty() || !FlowRuntime.FLOW_TYPE.equals(info.get().type())) {
      throw new HttpError(
          HttpURLConnection.HTTP_NOT_FOUND, HttpErrors.NOT_FOUND, "no flow with id " + id);
    }
    return info.get();
  }

  private Object resume(AdminRequest request, long id, String nodeName)
      throws HttpError, IOException, InterruptedException {
    byte[] body = request.body(ProcedureRoutes.MAX_BODY_BYTES);
    ResumeRequest req = body.length == 0 ? NO_BODY : JsonExchange.parse(body, ResumeRequest.class);
    if (req.reason() == null || req.reason().isBlank()) {
      throw bad(
          "missing required field 'reason': say why the operator resumes node '"
              + nodeName
              + "' of flow "
              + id
              + " (it is kept in the audit trail)");
    }
    ResumeAction action = req.action() == null ? ResumeAction.RERUN : req.action();
    ProcedureInfo info = flowInfo(id);
    FlowInfo flow = Flows.view(info);
    if (flow.node(nodeName).isEmpty()) {
      throw new HttpError(
          HttpURLConnection.HTTP_NOT_FOUND,
          HttpErrors.NOT_FOUND,
          "flow " + id + " has no node '" + nodeName + "'");
    }
    FlowResumePlan plan = FlowResumePlan.of(info, flow, nodeName, action);
    if (Boolean.TRUE.equals(req.dryRun())) {
      if (!plan.allowed()) {
        throw ActionRoutes.refused(plan.refusal());
      }
      return plan;
    }
    String reason = req.reason().strip();
    if (!plan.allowed()) {
      throw refusedAndRecorded(request, id, nodeName, action, reason, plan.refusal());
    }
    FlowInfo resumed;
    try {
      resumed = flows.resume(id, nodeName, action);
    } catch (InvalidFlowException e) { // the flow refused it: the node changed meanwhile
      throw refusedAndRecorded(request, id, nodeName, action, reason, e.getMessage());
    } catch (TimeoutException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_UNAVAILABLE,
          ClusterCalls.UNAVAILABLE,
          "resume: " + e.getMessage());
    }
    AuditEntry entry = record(request, id, nodeName, action, reason, false, plan.effect());
    metrics.operatorAction(RESUME, NodeMetrics.DONE);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("flow", resumed);
    out.put("audit", entry);
    return out;
  }

  /** Records a refused resume in the audit trail; answers its 409. */
  private HttpError refusedAndRecorded(
      AdminRequest request,
      long id,
      String nodeName,
      ResumeAction action,
      String reason,
      String why)
      throws HttpError, InterruptedException {
    record(request, id, nodeName, action, reason, true, why);
    metrics.operatorAction(RESUME, NodeMetrics.REFUSED);
    return ActionRoutes.refused(why);
  }

  private AuditEntry record(
      AdminRequest request,
      long id,
      String nodeName,
      ResumeAction action,
      String reason,
      boolean refused,
      String outcome)
      throws HttpError, InterruptedException {
    return ClusterCalls.await(
        node.recordResume(
            id, nodeName, action.name(), request.principal().name(), reason, refused, outcome));
  }

  private static JsonNode json(String text) {
    try {
      return text == null ? NullNode.instance : Json.STRICT.readTree(text);
    } catch (IOException e) {
      throw new IllegalArgumentException("task arguments are not JSON: " + e.getMessage(), e);
    }
  }

  private static HttpError bad(String message) {
    return new HttpError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, message);
  }
}
