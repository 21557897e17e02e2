package dev.baton.procedure.store;

import java.io.IOException;

/** A write or read reached a store that is not running (stopped, or never started). */
public class StoreStoppedException extends IOException {
  public StoreStoppedException(String message) {
    super(message);
  }
}
