import type { Readable } from 'node:stream'
import { Inflate } from 'fflate'
import { ExtractionStop, type Budget } from './budget.js'

/** Opens a byte range (inclusive ends) of the document. */
export type OpenRange = (range: { start: number; end: number }) => Promise<Readable>

/** One member of a zip archive as its central directory describes it. */
export interface ZipEntry {
  name: string
  method: number
  encrypted: boolean
  compressedSize: number
  localHeaderOffset: number
}

const EOCD_SIGNATURE = 0x06054b50
const CENTRAL_SIGNATURE = 0x02014b50
const LOCAL_SIGNATURE = 0x04034b50
const EOCD_SIZE = 22
/** The end record plus the longest comment a zip may carry. */
const TAIL_BYTES = EOCD_SIZE + 0xffff
/** Most bytes of central directory read: a document has tens of members, not millions. */
const MAX_DIRECTORY_BYTES = 8 * 1024 * 1024
/** Compressed bytes handed to the inflater at a time, so one push cannot expand unbounded. */
const INFLATE_STEP = 1024

async function readAll(stream: Readable, budget: Budget): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) {
    budget.check()
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
  }
  return Buffer.concat(chunks)
}

/**
 * The members of the zip archive of `size` bytes, read from its central directory (two
 * range reads at its end). Zip64 archives and damaged directories stop the extraction.
 * Written here rather than taken from a zip library because the reader must fetch only
 * the members it wants by range, from any blob store, with every size bounded.
 */
export async function readZipDirectory(open: OpenRange, size: number, budget: Budget): Promise<ZipEntry[]> {
  if (size < EOCD_SIZE) throw new ExtractionStop('not a zip archive')
  const tailStart = Math.max(0, size - TAIL_BYTES)
  const tail = await readAll(await open({ start: tailStart, end: size - 1 }), budget)
  let at = tail.length - EOCD_SIZE
  while (at >= 0 && tail.readUInt32LE(at) !== EOCD_SIGNATURE) at--
  if (at < 0) throw new ExtractionStop('not a zip archive')
  const directorySize = tail.readUInt32LE(at + 12)
  const directoryOffset = tail.readUInt32LE(at + 16)
  if (directoryOffset === 0xffffffff || directorySize === 0xffffffff) throw new ExtractionStop('zip64 archive')
  if (directorySize > MAX_DIRECTORY_BYTES || directoryOffset + directorySize > size) {
    throw new ExtractionStop('damaged zip directory')
  }
  if (directorySize === 0) return []
  const directory = await readAll(
    await open({ start: directoryOffset, end: directoryOffset + directorySize - 1 }),
    budget,
  )
  const entries: ZipEntry[] = []
  let p = 0
  while (p + 46 <= directory.length && directory.readUInt32LE(p) === CENTRAL_SIGNATURE) {
    const flags = directory.readUInt16LE(p + 8)
    const nameLength = directory.readUInt16LE(p + 28)
    const extraLength = directory.readUInt16LE(p + 30)
    const commentLength = directory.readUInt16LE(p + 32)
    entries.push({
      name: directory.toString('utf8', p + 46, p + 46 + nameLength),
      method: directory.readUInt16LE(p + 10),
      encrypted: (flags & 1) !== 0,
      compressedSize: directory.readUInt32LE(p + 20),
      localHeaderOffset: directory.readUInt32LE(p + 42),
    })
    p += 46 + nameLength + extraLength + commentLength
  }
  return entries
}

/**
 * Streams one member's uncompressed bytes to `onData`, counting them against the budget's
 * inflation bound (a zip bomb stops there, whatever sizes its headers claim). Stored and
 * deflated members only.
 */
export async function inflateEntry(
  open: OpenRange,
  size: number,
  entry: ZipEntry,
  budget: Budget,
  onData: (bytes: Uint8Array) => void,
): Promise<void> {
  if (entry.encrypted) throw new ExtractionStop('encrypted zip member')
  if (entry.method !== 0 && entry.method !== 8) throw new ExtractionStop('unknown zip compression')
  if (entry.compressedSize === 0) return
  const headerEnd = entry.localHeaderOffset + 30
  if (headerEnd > size) throw new ExtractionStop('damaged zip member')
  const header = await readAll(await open({ start: entry.localHeaderOffset, end: headerEnd - 1 }), budget)
  if (header.length < 30 || header.readUInt32LE(0) !== LOCAL_SIGNATURE) throw new ExtractionStop('damaged zip member')
  const dataStart = headerEnd + header.readUInt16LE(26) + header.readUInt16LE(28)
  const dataEnd = dataStart + entry.compressedSize - 1
  if (dataEnd >= size) throw new ExtractionStop('damaged zip member')
  const deliver = (bytes: Uint8Array) => {
    budget.inflated(bytes.length)
    onData(bytes)
  }
  const inflater = entry.method === 8 ? new Inflate((bytes) => deliver(bytes)) : undefined
  const stream = await open({ start: dataStart, end: dataEnd })
  try {
    for await (const chunk of stream) {
      budget.check()
      if (budget.done()) return
      const bytes: Uint8Array = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)
      if (inflater === undefined) {
        deliver(bytes)
        continue
      }
      for (let i = 0; i < bytes.length && !budget.done(); i += INFLATE_STEP) {
        inflater.push(bytes.subarray(i, i + INFLATE_STEP))
      }
    }
    if (inflater !== undefined && !budget.done()) inflater.push(new Uint8Array(0), true)
  } finally {
    stream.destroy()
  }
}
