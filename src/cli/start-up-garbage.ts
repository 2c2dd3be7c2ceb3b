/**
 * One full garbage collection once the server is up. A start leaves a few MiB of garbage
 * behind (module initialisation, the configuration, the migrations check) that V8 collects
 * only after some seconds of quiet, when its memory reducer runs: collected at once, an idle
 * Folio is that much smaller from its first second, not from its tenth (BENCHMARKS.md,
 * scenario 7). `gc` is there when node runs with --expose-gc, as `npm start` and the
 * deploy files run it; without it this does nothing.
 */
export function collectStartUpGarbage(): void {
  const gc: unknown = Reflect.get(globalThis, 'gc')
  if (typeof gc === 'function') gc()
}
