package dev.baton.confignode.procedures;

import dev.baton.confignode.datanode.RegionKind;
import dev.baton.confignode.meta.ClusterMetadata.Region;
import dev.baton.procedure.BoundedReads;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Writes and reads region lists inside a procedure's own state. */
final class RegionCodec {
  /** The fewest bytes a written region takes: id, replica count and leader, database and kind. */
  private static final int MIN_REGION_BYTES = 3 * Integer.BYTES + 2 * Short.BYTES;

  private RegionCodec() {}

  static void write(DataOutputStream out, List<Region> regions) throws IOException {
    out.writeInt(regions.size());
    for (Region r : regions) {
      write(out, r);
    }
  }

  static List<Region> readList(DataInputStream in) throws IOException {
    int n = BoundedReads.readCount(in, MIN_REGION_BYTES, "regions");
    List<Region> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(read(in));
    }
    return out;
  }

  static void write(DataOutputStream out, Region r) throws IOException {
    out.writeInt(r.id());
    out.writeUTF(r.database());
    out.writeUTF(r.kind().name());
    out.writeInt(r.replicas().size());
    for (int dn : r.replicas()) {
      out.writeInt(dn);
    }
    out.writeInt(r.leader());
  }

  static Region read(DataInputStream in) throws IOException {
    int id = in.readInt();
    String db = in.readUTF();
    RegionKind kind = RegionKind.valueOf(in.readUTF());
    int n = BoundedReads.readCount(in, Integer.BYTES, "replicas of region " + id);
    List<Integer> replicas = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      replicas.add(in.readInt());
    }
    return new Region(id, db, kind, replicas, in.readInt());
  }
}
