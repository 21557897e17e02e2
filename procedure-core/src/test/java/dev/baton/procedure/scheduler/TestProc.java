package dev.baton.procedure.scheduler;

import dev.baton.procedure.Procedure;

/** A procedure object for scheduler and lock tests: never run, optionally naming a resource. */
final class TestProc extends Procedure<Void> implements ResourceProcedure {
  final String label;
  final ResourceKey resource;

  TestProc(String label, ResourceKey resource) {
    this.label = label;
    this.resource = resource;
  }

  TestProc(String label) {
    this(label, null);
  }

  @Override
  public ResourceKey schedulingResource() {
    return resource;
  }

  @Override
  protected Procedure<Void>[] execute(Void env) {
    return null;
  }

  @Override
  protected void rollback(Void env) {}

  @Override
  protected boolean abort(Void env) {
    return false;
  }

  @Override
  public String toString() {
    return label;
  }
}
