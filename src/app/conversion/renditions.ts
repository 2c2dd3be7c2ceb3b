import type { Readable } from 'node:stream'
import type { ConversionTarget } from '../../core/conversion/formats.js'
import { isDomainError } from '../../core/errors.js'
import type { BlobStore } from '../../ports/blob-store.js'
import type { Converter } from '../../ports/converter.js'
import type { RenditionRecord, RenditionRepository } from '../../ports/metadata-store.js'
import type { AppContext } from '../context.js'
import { NO_CONVERTER } from './no-converter.js'

/** What renditions are made with and kept in. */
export interface RenditionDeps {
  converter: Converter
  renditions: RenditionRepository
  blobs: BlobStore
  maxOutputBytes: number
  now: () => number
}

/** A rendition ready to send. */
export interface OpenRendition {
  record: RenditionRecord
  stream: Readable
}

/**
 * Renditions made once per stored contents: the first request converts and keeps the
 * result in the blob store, recorded in the metadata store; later ones (on any instance)
 * read it. Requests of this process for the same rendition while it is being made wait
 * for that one conversion.
 */
export function createRenditions(deps: RenditionDeps) {
  const making = new Map<string, Promise<RenditionRecord>>()

  async function make(
    source: { blobKey: string; extension: string },
    target: ConversionTarget,
  ): Promise<RenditionRecord> {
    const converted = await deps.converter.convert({
      source: { kind: 'blob', blobKey: source.blobKey, extension: source.extension },
      target,
      maxOutputBytes: deps.maxOutputBytes,
    })
    const stored = await deps.blobs.put(converted.stream(), {
      maxBytes: deps.maxOutputBytes,
      expectedSize: converted.size,
    })
    const kept = await deps.renditions.add({
      sourceBlobKey: source.blobKey,
      target,
      blobKey: stored.key,
      size: stored.size,
      sha256: stored.sha256,
      createdAt: deps.now(),
    })
    // Another instance recorded its own first: that one stays, this copy goes.
    if (kept.blobKey !== stored.key) await deps.blobs.delete(stored.key)
    return kept
  }

  async function recorded(
    source: { blobKey: string; extension: string },
    target: ConversionTarget,
  ): Promise<RenditionRecord> {
    const existing = await deps.renditions.get(source.blobKey, target)
    if (existing) return existing
    const id = `${source.blobKey}\n${target}`
    let pending = making.get(id)
    if (!pending) {
      pending = make(source, target).finally(() => making.delete(id))
      making.set(id, pending)
    }
    return pending
  }

  return {
    /** The rendition of these contents in `target`, made now when it was not yet. */
    async open(source: { blobKey: string; extension: string }, target: ConversionTarget): Promise<OpenRendition> {
      const record = await recorded(source, target)
      try {
        return { record, stream: await deps.blobs.get(record.blobKey) }
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'NOT_FOUND') throw error
        // Its blob was collected (its source was unused for a while): made again.
        await deps.renditions.forget(source.blobKey, target)
        const again = await recorded(source, target)
        return { record: again, stream: await deps.blobs.get(again.blobKey) }
      }
    },
  }
}

export type Renditions = ReturnType<typeof createRenditions>

/** Renditions over the application's converter and stores (CONVERTER_OFF without a converter). */
export function renditionsOf(ctx: AppContext): Renditions {
  return createRenditions({
    converter: ctx.converter ?? NO_CONVERTER,
    renditions: ctx.store.renditions,
    blobs: ctx.blobs,
    maxOutputBytes: ctx.config.maxFileSize,
    now: () => ctx.clock.now(),
  })
}
