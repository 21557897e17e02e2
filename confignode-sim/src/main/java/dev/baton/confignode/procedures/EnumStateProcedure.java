package dev.baton.confignode.procedures;

import dev.baton.confignode.ConfigNodeEnv;
import dev.baton.procedure.EnumStateMachineProcedure;

/** A ConfigNode procedure whose states are the constants of an enum, in execution order. */
public abstract class EnumStateProcedure<S extends Enum<S>>
    extends EnumStateMachineProcedure<ConfigNodeEnv, S> {
  protected EnumStateProcedure(Class<S> type) {
    super(type);
  }
}
