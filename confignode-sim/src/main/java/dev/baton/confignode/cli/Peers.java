package dev.baton.confignode.cli;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The {@code ID=HOST:PORT,...} of {@code node --peers}: every ConfigNode's Raft address by id.
 *
 * @param byId in the order given
 */
record Peers(Map<String, InetSocketAddress> byId) {
  Peers {
    byId = Collections.unmodifiableMap(new LinkedHashMap<>(byId));
  }

  @Override
  public String toString() {
    return byId.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue().getHostString() + ":" + e.getValue().getPort())
        .collect(Collectors.joining(","));
  }

  /** Reads {@code ID=HOST:PORT,...}; an id given twice is refused. */
  static final class Converter implements ITypeConverter<Peers> {
    @Override
    public Peers convert(String value) {
      Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
      for (String part : value.split(",", -1)) {
        int eq = part.indexOf('=');
        if (eq <= 0) {
          throw new TypeConversionException("entries must be ID=HOST:PORT, got '" + part + "'");
        }
        String id = part.substring(0, eq);
        if (peers.put(id, HostPorts.address(part.substring(eq + 1))) != null) {
          throw new TypeConversionException("names id '" + id + "' twice");
        }
      }
      return new Peers(peers);
    }
  }
}
