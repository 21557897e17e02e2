/**
 * Where procedure records live: the {@link dev.baton.procedure.store.ProcedureStore} SPI, {@link
 * dev.baton.procedure.store.InMemoryProcedureStore}, the segment-log {@link
 * dev.baton.procedure.store.FileProcedureStore}, and {@link
 * dev.baton.procedure.store.DurableFiles}. Uses only the generated protobuf records.
 */
package dev.baton.procedure.store;
