import { isDomainError } from '../../core/errors.js'
import type { BlobStore } from '../../ports/blob-store.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import type { Telemetry } from '../../ports/telemetry.js'

/**
 * `target` with every method's rejected promise reported through `onError` (and passed
 * on unchanged) unless it is a DomainError: those are the store's answers (a name taken,
 * no such file), not failures. Only methods returning promises are watched.
 */
function reportingFailures<T extends object>(target: T, onError: () => void): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        const result: unknown = Reflect.apply(value, object, args)
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            if (!isDomainError(error)) onError()
            throw error
          })
        }
        return result
      }
    },
  })
}

/**
 * The storage the application works on, with every failure of the database or the blob
 * store (errors that are not domain decisions) counted through `telemetry` as it reaches
 * the application: one place for every use case.
 */
export function withStorageErrorReports(
  storage: { store: MetadataStore; blobs: BlobStore },
  telemetry: Telemetry,
): { store: MetadataStore; blobs: BlobStore } {
  const database = () => telemetry.storageError('database')
  const { store } = storage
  return {
    store: {
      renditions: reportingFailures(store.renditions, database),
      users: reportingFailures(store.users, database),
      sessions: reportingFailures(store.sessions, database),
      throttle: reportingFailures(store.throttle, database),
      files: reportingFailures(store.files, database),
      folders: reportingFailures(store.folders, database),
      settings: reportingFailures(store.settings, database),
      userSettings: reportingFailures(store.userSettings, database),
      quotas: reportingFailures(store.quotas, database),
      editing: reportingFailures(store.editing, database),
      audit: reportingFailures(store.audit, database),
      shares: reportingFailures(store.shares, database),
      shareLinks: reportingFailures(store.shareLinks, database),
      folderLinks: reportingFailures(store.folderLinks, database),
      transfer: reportingFailures(store.transfer, database),
      operations: reportingFailures(store.operations, database),
      jobs: reportingFailures(store.jobs, database),
      search: reportingFailures(store.search, database),
      close: () => store.close(),
    },
    blobs: reportingFailures(storage.blobs, () => telemetry.storageError('blob')),
  }
}
