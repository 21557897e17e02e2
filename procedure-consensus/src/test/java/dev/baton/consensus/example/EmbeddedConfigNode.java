package dev.baton.consensus.example;

// README:begin embedding
import dev.baton.consensus.LeaderContext;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.StateMachineProcedure;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A ConfigNode of three: {@code EmbeddedConfigNode a a=h1:9870,b=h2:9870,c=h3:9870 /data/a}. */
public final class EmbeddedConfigNode {
  /** What a step sees: the leader context, whose term its side effects carry (fencing). */
  public record Env(LeaderContext leader) {}

  /** Two steps, each persisted before the next; a step may run again after a failover. */
  public static final class CreateDatabase extends StateMachineProcedure<Env, Integer> {
    @Override
    protected Flow executeFromState(Env env, Integer step) {
      if (step == 0) { // validate, then:
        setNextState(1);
        return Flow.HAS_MORE_STATE;
      }
      return Flow.NO_MORE_STATE; // here the DataNodes are told, with env.leader().term()
    }

    @Override
    protected void rollbackState(Env env, Integer step) {} // undo what the step did

    @Override
    protected Integer getState(int id) {
      return id;
    }

    @Override
    protected int getStateId(Integer step) {
      return step;
    }

    @Override
    protected Integer getInitialState() {
      return 0;
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
    for (String peer : args[1].split(",")) { // ID=HOST:PORT,...
      String[] p = peer.split("[=:]");
      peers.put(p[0], new InetSocketAddress(p[1], Integer.parseInt(p[2])));
    }
    try (ProcedureNode<Env> node =
        ProcedureNode.<Env>builder()
            .nodeId(args[0])
            .peers(peers)
            .storageDir(Path.of(args[2]))
            .registry(
                new ProcedureRegistry()
                    .register("CreateDatabase", CreateDatabase.class, CreateDatabase::new))
            .environment(Env::new) // one per leader term
            .onRoleChange(role -> System.out.println(args[0] + " is now " + role))
            .build()) {
      node.start();
      // every member submits it: one nonce, so one procedure
      long procId = node.submit(new CreateDatabase(), new NonceKey(1, 1)).get(30, TimeUnit.SECONDS);
      ProcedureInfo info = node.await(procId, Duration.ofSeconds(30));
      System.out.println(args[0] + ": procedure " + procId + " " + info.state());
      Thread.currentThread().join(); // serve until the process is stopped
    }
  }
}
// README:end embedding
