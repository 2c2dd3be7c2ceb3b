/**
 * What the application reports for monitoring (implemented by the metrics adapter; absent
 * when metrics are off). Calls are cheap and never throw.
 */
export interface Telemetry {
  /** An ONLYOFFICE save stored: 'exit' (status 2) or 'force' (status 6), its bytes and how long it took. */
  editorSave(kind: 'exit' | 'force', bytes: number, seconds: number): void
  /** A failure of the storage below the application that was not a domain decision. */
  storageError(store: 'blob' | 'database'): void
}
