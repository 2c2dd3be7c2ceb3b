import type { RenditionRecord } from '../../ports/metadata-store.js'

/** A row of the renditions table, as both SQL drivers read it. */
export interface RenditionRow {
  source_blob_key: string
  target: string
  blob_key: string
  size: number
  sha256: string
  created_at: number
}

/** The record a renditions row stands for. */
export const toRendition = (row: RenditionRow): RenditionRecord => ({
  sourceBlobKey: row.source_blob_key,
  target: row.target,
  blobKey: row.blob_key,
  size: row.size,
  sha256: row.sha256,
  createdAt: row.created_at,
})
