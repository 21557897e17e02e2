package dev.baton.confignode.cli;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A {@code HOST:PORT,...} list ({@code --cluster}, {@code --datanodes}), each port in {@code
 * 1..}{@value #MAX_PORT}.
 *
 * @param addresses {@code host:port} each
 */
record HostPorts(List<String> addresses) {
  static final int MAX_PORT = 65_535;

  HostPorts {
    addresses = List.copyOf(addresses);
  }

  @Override
  public String toString() {
    return String.join(",", addresses);
  }

  /** One {@code HOST:PORT}; the message names what is wrong, the flag is added by the caller. */
  static InetSocketAddress address(String s) {
    int colon = s.lastIndexOf(':');
    if (colon <= 0) {
      throw new TypeConversionException("address must be HOST:PORT, got '" + s + "'");
    }
    try {
      int port = Integer.parseInt(s.substring(colon + 1));
      if (port >= 1 && port <= MAX_PORT) {
        return InetSocketAddress.createUnresolved(s.substring(0, colon), port);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new TypeConversionException("port must be 1.." + MAX_PORT + " in '" + s + "'");
  }

  /** Reads {@code HOST:PORT,...}. */
  static final class Converter implements ITypeConverter<HostPorts> {
    @Override
    public HostPorts convert(String value) {
      List<String> out = new ArrayList<>();
      for (String part : value.split(",", -1)) {
        InetSocketAddress a = address(part.strip());
        out.add(a.getHostString() + ":" + a.getPort());
      }
      return new HostPorts(out);
    }
  }
}
