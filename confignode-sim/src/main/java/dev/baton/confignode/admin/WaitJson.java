package dev.baton.confignode.admin;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.baton.confignode.http.Json;
import dev.baton.procedure.BlockedOn;
import dev.baton.procedure.WaitChain;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a procedure waits on as the admin API writes it: a {@link BlockedOn} is an object with its
 * {@code kind} first, then its fields (a lock wait's and a full limit's flattened in), then {@code
 * waitsFor}, the procedures whose progress ends the wait; a {@link WaitChain} is its links, each
 * with its {@code blockedOn} so written.
 */
final class WaitJson {
  private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {};

  private WaitJson() {}

  /** {@code b} as a JSON object; null for null. */
  static Map<String, Object> blockedOn(BlockedOn b) {
    if (b == null) {
      return null;
    }
    Object fields = b;
    if (b instanceof BlockedOn.Lock l) {
      fields = l.lock();
    } else if (b instanceof BlockedOn.ConcurrencyLimit c) {
      fields = c.slots();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("kind", b.kind());
    out.putAll(Json.STRICT.convertValue(fields, OBJECT));
    out.put("waitsFor", b.waitsFor());
    return out;
  }

  /** {@code chain} as answered by the node {@code nodeId} leading {@code term}. */
  static Map<String, Object> chain(WaitChain chain, String nodeId, long term) {
    List<Map<String, Object>> links = new ArrayList<>();
    for (WaitChain.Link l : chain.links()) {
      Map<String, Object> link = new LinkedHashMap<>();
      link.put("procId", l.procId());
      link.put("type", l.type());
      link.put("state", l.state());
      link.put("step", l.step());
      link.put("blockedOn", blockedOn(l.blockedOn()));
      link.put("waitReason", l.waitReason());
      links.add(link);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("nodeId", nodeId);
    out.put("term", term);
    out.put("procId", chain.procId());
    out.put("cycle", chain.cycle());
    out.put("rootCause", chain.rootCause());
    out.put("links", links);
    return out;
  }
}
