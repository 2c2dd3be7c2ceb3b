// The part of yazl (a streaming zip writer) Folio uses, typed as yazl 3 behaves: its
// outputStream is a stream.PassThrough and end()'s callback receives the archive's final
// length (-1 when some entry's size is unknown). DefinitelyTyped's types say otherwise.
declare module 'yazl' {
  import type { EventEmitter } from 'node:events'
  import type { PassThrough, Readable } from 'node:stream'

  interface EntryOptions {
    mtime?: Date
    mode?: number
    compress?: boolean
    forceZip64Format?: boolean
    size?: number
  }

  export class ZipFile extends EventEmitter {
    readonly outputStream: PassThrough
    addReadStreamLazy(
      metadataPath: string,
      options: EntryOptions,
      getReadStream: (callback: (error: Error | null, stream?: Readable) => void) => void,
    ): void
    addEmptyDirectory(metadataPath: string, options?: { mtime?: Date; mode?: number }): void
    end(options: { forceZip64Format?: boolean; comment?: string }, calculatedTotalSize: (total: number) => void): void
  }
}
