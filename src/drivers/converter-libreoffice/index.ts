import { spawnSync } from 'node:child_process'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { canConvert, normalizeExtension, THUMBNAIL_MAX_PIXELS } from '../../core/conversion/formats.js'
import { DomainError } from '../../core/errors.js'
import type { BlobStore } from '../../ports/blob-store.js'
import type { ConversionRequest, ConvertedDocument, Converter, ConverterStatus } from '../../ports/converter.js'
import type { Logger } from '../../ports/logger.js'
import { OfficeWorker, type OfficeOutcome } from './office-worker.js'
import { SlotPool } from '../converter-shared/slot-pool.js'

/** Settings of the LibreOffice pool. */
export interface LibreOfficeConverterOptions {
  /** Most office processes at once (FOLIO_CONVERTER_WORKERS). */
  workers: number
  /** Longest one conversion may run; the office is then replaced (FOLIO_CONVERTER_TIMEOUT). */
  timeoutMs: number
  /** Conversions that may wait for a worker; beyond them CONVERTER_BUSY (FOLIO_CONVERTER_QUEUE). */
  queueSize: number
  /** Largest result, bytes; also the largest file the office may write. */
  maxOutputBytes: number
  /** Address-space limit of each office process, bytes (0: none). Default 2 GiB. */
  memoryBytes?: number
  /** An office is replaced after this many conversions. Default 200. */
  conversionsPerProcess?: number
  /** Where blob sources are read from. */
  blobs?: BlobStore
  /** Parent of the pool's temporary folder. Default the system's. */
  tempRoot?: string
  /** soffice.bin. Default /usr/lib/libreoffice/program/soffice.bin. */
  officeBinary?: string
  /** A Python 3 with the `uno` module. Default /usr/bin/python3. */
  python?: string
  /**
   * 'auto' runs each office in a network namespace of its own when the system allows it
   * (unshare); 'off' relies on the office's own settings alone (tests of those settings).
   */
  isolateNetwork?: 'auto' | 'off'
  logger?: Logger
}

/** The pool as tests and the bench see it: office processes running now. */
export interface LibreOfficeConverter extends Converter {
  officePids(): number[]
}

export const DEFAULT_OFFICE_BINARY = '/usr/lib/libreoffice/program/soffice.bin'
const DEFAULT_MEMORY_BYTES = 2 * 1024 ** 3
const DEFAULT_CONVERSIONS_PER_PROCESS = 200
const START_TIMEOUT_MS = 60_000
/** Room the office's own files (profile, temporary files) need above the output limit. */
const FILE_SIZE_SLACK = 64 * 1024 ** 2

const bridgeScript = fileURLToPath(new URL('./uno-bridge.py', import.meta.url))

/** True when this system lets an unprivileged process make a user and network namespace. */
function canIsolateNetwork(): boolean {
  const probe = spawnSync('unshare', ['--user', '--map-root-user', '--net', '--', 'true'], {
    stdio: 'ignore',
    timeout: 5_000,
  })
  return probe.status === 0
}

const failed = (message: string) => new DomainError('CONVERSION_FAILED', message)

function failureOf(outcome: Exclude<OfficeOutcome, { ok: true }>, extension: string, timeoutMs: number): DomainError {
  switch (outcome.error) {
    case 'load':
      return failed(`the file could not be read as a .${extension} document`)
    case 'unsupported':
      return failed(`the document cannot be converted to this format: ${outcome.message}`)
    case 'timeout':
      return failed(`the conversion took longer than ${Math.round(timeoutMs / 1000)} s and was stopped`)
    case 'store':
      return failed('the document could not be written in the asked format')
    case 'crash':
      return failed('the office stopped while converting this document')
  }
}

/** Opens the pool; no office starts before the first conversion. */
export async function openLibreOfficeConverter(options: LibreOfficeConverterOptions): Promise<LibreOfficeConverter> {
  const root = await mkdtemp(join(options.tempRoot ?? tmpdir(), 'folio-convert-'))
  const jobsRoot = join(root, 'jobs')
  await mkdir(jobsRoot, { mode: 0o700 })
  // Probed when the first office starts, so opening the pool costs a start-up nothing.
  let isolate: boolean | undefined
  const isolated = () => {
    isolate ??= options.isolateNetwork !== 'off' && canIsolateNetwork()
    return isolate
  }
  const perProcess = options.conversionsPerProcess ?? DEFAULT_CONVERSIONS_PER_PROCESS
  const workerOptions = (slot: number) => ({
    python: options.python ?? '/usr/bin/python3',
    bridgeScript,
    officeBinary: options.officeBinary ?? DEFAULT_OFFICE_BINARY,
    folder: join(root, `worker-${slot}`),
    memoryBytes: options.memoryBytes ?? DEFAULT_MEMORY_BYTES,
    fileSizeBytes: options.maxOutputBytes + FILE_SIZE_SLACK,
    isolateNetwork: isolated(),
    startTimeoutMs: START_TIMEOUT_MS,
  })
  const workers: Array<OfficeWorker | undefined> = Array.from({ length: options.workers }, () => undefined)
  const slots = new SlotPool(options.workers, options.queueSize)
  let closed = false

  async function retire(slot: number): Promise<void> {
    const worker = workers[slot]
    workers[slot] = undefined
    await worker?.kill()
  }

  async function workerFor(slot: number): Promise<OfficeWorker> {
    const current = workers[slot]
    if (current?.alive) return current
    await retire(slot)
    if (closed) throw new DomainError('CONVERTER_OFF', 'the converter has stopped')
    try {
      const started = await OfficeWorker.start(workerOptions(slot))
      workers[slot] = started
      return started
    } catch (error) {
      options.logger?.error({ err: error }, 'LibreOffice did not start')
      throw new DomainError('UPSTREAM_FAILED', 'the document converter (LibreOffice) did not start')
    }
  }

  /** One job on the slot's office; a crash is tried once more on a fresh office. */
  async function runJob(slot: number, job: Parameters<OfficeWorker['run']>[0]): Promise<OfficeOutcome> {
    for (let attempt = 1; ; attempt += 1) {
      const worker = await workerFor(slot)
      const outcome = await worker.run(job, options.timeoutMs)
      if (outcome.ok) {
        if (worker.conversions >= perProcess) await retire(slot)
        return outcome
      }
      if (outcome.error === 'timeout' || outcome.error === 'crash') {
        options.logger?.warn({ pid: worker.officePid, reason: outcome.error }, 'LibreOffice process replaced')
        await retire(slot)
      }
      if (outcome.error !== 'crash' || attempt >= 2) return outcome
    }
  }

  async function writeSource(request: ConversionRequest, path: string): Promise<void> {
    const source = request.source
    let input: Readable
    if (source.kind === 'stream') {
      input = source.stream
    } else {
      if (!options.blobs) throw new Error('this converter was opened without a blob store')
      input = await options.blobs.get(source.blobKey)
    }
    await pipeline(input, createWriteStream(path, { mode: 0o600 }), request.signal ? { signal: request.signal } : {})
  }

  return {
    status(): ConverterStatus {
      const network =
        isolate === undefined
          ? 'network namespace when the system allows it'
          : isolate
            ? 'no network (own namespace)'
            : 'network blocked by its settings'
      return {
        kind: 'libreoffice',
        detail: `LibreOffice, ${options.workers} worker(s), ${Math.round(options.timeoutMs / 1000)} s per conversion, ${network}`,
      }
    },

    officePids: () => workers.flatMap((worker) => (worker?.alive ? [worker.officePid] : [])),

    async convert(request): Promise<ConvertedDocument> {
      if (closed) throw new DomainError('CONVERTER_OFF', 'the converter has stopped')
      const extension = normalizeExtension(request.source.extension)
      if (extension === undefined || !canConvert(extension, request.target)) {
        throw new DomainError(
          'CONVERSION_UNSUPPORTED',
          `a .${extension ?? 'unknown'} file cannot be converted to .${request.target}`,
        )
      }
      const limit = Math.min(request.maxOutputBytes ?? options.maxOutputBytes, options.maxOutputBytes)
      const folder = await mkdtemp(join(jobsRoot, 'job-'))
      const input = join(folder, `source.${extension}`)
      const output = join(folder, `result.${request.target}`)
      let handedOver = false
      try {
        const retryAfterSeconds = Math.max(1, Math.ceil(options.timeoutMs / 1000))
        const slot = await slots.acquire(
          request.signal,
          () =>
            new DomainError('CONVERTER_BUSY', 'every document converter is busy; try again shortly', {
              retryAfterSeconds,
            }),
        )
        let outcome: OfficeOutcome
        try {
          await writeSource(request, input)
          outcome = await runJob(slot, {
            input,
            output,
            target: request.target,
            // A few pixels under the limit: the office rounds page sizes up.
            thumbnailPixels: THUMBNAIL_MAX_PIXELS - 4,
          })
        } finally {
          slots.release(slot)
        }
        if (!outcome.ok) throw failureOf(outcome, extension, options.timeoutMs)
        const size = await stat(output).then(
          (info) => info.size,
          () => -1,
        )
        if (size < 0) throw failed('the conversion produced nothing')
        if (size > limit) throw failed(`the converted document is larger than ${limit} bytes`)
        handedOver = true
        const remove = () => rm(folder, { recursive: true, force: true })
        return {
          target: request.target,
          size,
          stream: () => {
            const stream = createReadStream(output)
            stream.once('close', () => void remove())
            return stream
          },
          discard: remove,
        }
      } finally {
        if (!handedOver) await rm(folder, { recursive: true, force: true })
      }
    },

    async close() {
      closed = true
      slots.close(() => new DomainError('CONVERTER_OFF', 'the converter has stopped'))
      await Promise.all(workers.map((_, slot) => retire(slot)))
      await rm(root, { recursive: true, force: true })
    },
  }
}
