import { collectGarbage } from '../../process/collector.js'

/**
 * Bytes of a body that pass between two young-generation collections while a blob is
 * stored. Node reads a socket into a fresh 64 KiB buffer per chunk; those buffers are
 * garbage as soon as they are written and hashed, but V8 frees them only at its next
 * collection, which a body's few small objects barely bring closer. Measured with a
 * 300 MiB upload (curl, raw body): left to V8, resident memory rose 35-40 MiB above idle;
 * a scavenge every 16 MiB kept the rise near 20 MiB, every 8 MiB near 11, every 4 MiB
 * near 8. Each scavenge took about 0.5 ms (--trace-gc), as almost nothing young is alive
 * mid-stream. 4 MiB, because a body Folio downloads (an ONLYOFFICE save, node:http client)
 * makes twice the garbage per byte (the socket's buffer and the parser's copy of the body):
 * at 8 MiB a 100 MiB save peaked 20-25 MiB above idle, at 4 MiB near 12 (bench scenario 4).
 * At 300 MiB/s that is one scavenge every ~13 ms, about 4% of the event loop.
 */
export const RECLAIM_EVERY_BYTES = 4 * 1024 * 1024

/** Runs a young-generation collection now (see RECLAIM_EVERY_BYTES). */
export function reclaimBodyBuffers(): void {
  collectGarbage('minor')
}
