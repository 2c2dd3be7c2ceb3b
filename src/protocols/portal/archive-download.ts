import { create as contentDisposition } from 'content-disposition'
import type { FastifyReply } from 'fastify'
import type { AdapterContext, ArchivePlan, Principal } from '../../app/index.js'

/**
 * Sends a download of several items as one zip archive, streamed: each file's bytes are
 * read from the blob store only when the archive reaches it, so one file is open at a
 * time and nothing is held whole in memory. Entries are stored, not deflated: office
 * documents, PDFs and images are compressed already, and storing lets the archive's
 * exact length be known before the first byte (Content-Length, so browsers show
 * progress). yazl writes ZIP64 records where an entry or the archive passes 4 GiB.
 *
 * Each file's access is asked again when the archive reaches it. A file `by` may no
 * longer download (a share removed, the file trashed meanwhile) stops the archive before
 * any byte of it: its length is declared, so a client sees the download fail rather than
 * a zip that looks whole and silently lacks files, and downloading again plans an archive
 * of what `by` may read then. The log says which entry stopped it and how far it got.
 */
export async function sendArchive(
  ctx: AdapterContext,
  reply: FastifyReply,
  by: Principal,
  plan: ArchivePlan,
): Promise<FastifyReply> {
  // Loaded on the first download of several items: most processes never need it.
  const { ZipFile } = await import('yazl')
  const zip = new ZipFile()
  // A blob that cannot be read ends the download short (the client sees it cut off, as
  // for any broken transfer); the log says so. Never left unhandled: that would stop Folio.
  let failed = false
  const fail = (error: unknown) => {
    if (failed) return
    failed = true
    ctx.logger.error({ err: error }, 'a download of several items stopped part-way')
    zip.outputStream.destroy(error instanceof Error ? error : new Error(String(error)))
  }
  zip.on('error', fail)
  const files = plan.entries.filter((entry) => entry.kind === 'file').length
  let sent = 0
  for (const entry of plan.entries) {
    if (entry.kind === 'folder') {
      zip.addEmptyDirectory(entry.path, { mtime: new Date() })
      continue
    }
    const { file, converted } = entry
    const size = converted?.size ?? file.size
    zip.addReadStreamLazy(entry.path, { compress: false, size, mtime: new Date(file.updatedAt) }, (done) => {
      ctx.app.folders.openArchiveEntry(by, file, converted).then((stream) => {
        if (stream === undefined) {
          if (failed) return
          failed = true
          ctx.logger.warn(
            { userId: by.user.id, fileId: file.id, filesSent: sent, files },
            'a download of several items stopped: the caller may no longer download its next file',
          )
          zip.outputStream.destroy()
          return
        }
        sent++
        stream.once('error', fail)
        done(null, stream)
      }, fail)
    })
  }
  const length = await new Promise<number>((resolve) => {
    zip.end({}, (total) => resolve(total))
  })
  reply.header('Content-Type', 'application/zip')
  reply.header('Content-Disposition', contentDisposition(plan.name, { type: 'attachment' }))
  reply.header('X-Content-Type-Options', 'nosniff')
  reply.header('Cache-Control', 'private, no-store')
  if (length >= 0) reply.header('Content-Length', String(length))
  return reply.send(zip.outputStream)
}
