package dev.baton.confignode.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code confignode-sim --version}: the project version, from {@value #RESOURCE} beside this class,
 * which Maven fills in when it copies the resources.
 */
final class ProjectVersion implements IVersionProvider {
  static final String RESOURCE = "version.properties";

  @Override
  public String[] getVersion() throws IOException {
    return new String[] {"confignode-sim " + version()};
  }

  static String version() throws IOException {
    try (InputStream in = ProjectVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IOException("no " + RESOURCE + " beside " + ProjectVersion.class.getName());
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    }
  }
}
