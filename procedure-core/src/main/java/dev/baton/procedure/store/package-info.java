/**
 * Where procedure records live: the {@link dev.baton.procedure.store.ProcedureStore} SPI, {@link
 * dev.baton.procedure.store.InMemoryProcedureStore}, the segment-log {@link
 * dev.baton.procedure.store.FileProcedureStore}, {@link dev.baton.procedure.store.DurableFiles},
 * and the parts a record may carry beside its head ({@link dev.baton.procedure.store.RecordParts}).
 * Uses only the generated protobuf records.
 */
package dev.baton.procedure.store;
