package dev.baton.certs;

/** What a certificate's key may authenticate in TLS (its extended key usage). */
public enum Usage {
  /** The server side of a connection (a member's listening port, a DataNode's). */
  SERVER,
  /** The client side (a member's connections to the others, a client's, an operator's). */
  CLIENT
}
