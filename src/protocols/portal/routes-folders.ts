import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AdapterContext, FileOperation, Principal } from '../../app/index.js'
import type { FileRecord, FolderRecord, OperationItem } from '../../core/entities.js'
import { isDomainError } from '../../core/errors.js'
import { me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { itemPresenter } from './present-items.js'
import { ROOT_FOLDER_TYPE } from './presenters.js'
import { listQueryOf } from './list-query.js'
import { shareListing } from './share-listing.js'
import { sendArchive } from './archive-download.js'
import { isListingSearch, searchListing } from './routes-search.js'
import {
  archiveQuery,
  bulkDownloadBody,
  deleteItemsBody,
  folderRefParams,
  immediatelyInput,
  moveCheckQuery,
  moveCopyBody,
  parseInput,
  titleBody,
} from './schema.js'

const OPERATION_TYPE: Record<FileOperation['kind'], number> = { move: 0, copy: 1, delete: 2, download: 3 }

/** A folder reference from a path: '@my', '@trash', '@share', '@root' or an id; '.json' dropped. */
export function folderRef(raw: string): string {
  return raw.endsWith('.json') ? raw.slice(0, -'.json'.length) : raw
}

/** The '@share' section's own record (its contents come from shareListing). */
function shareSection(by: Principal) {
  return {
    id: '@share',
    title: 'Shared with me',
    parentId: 0,
    filesCount: 0,
    foldersCount: 0,
    isShareable: false,
    rootFolderType: ROOT_FOLDER_TYPE.share,
    access: 0,
    shared: false,
    createdBy: { id: by.user.id, displayName: by.user.displayName },
    updatedBy: { id: by.user.id, displayName: by.user.displayName },
  }
}

/**
 * Where a finished download of several items is fetched: the archive path with the
 * selected ids. The archive is made when fetched, from what the caller may read then.
 */
export function archiveUrl(publicUrl: string, op: Pick<FileOperation, 'files' | 'folders'>): string {
  const query = new URLSearchParams()
  if (op.folders.length > 0) query.set('folderIds', op.folders.map((item) => item.id).join(','))
  if (op.files.length > 0) query.set('fileIds', op.files.map((item) => item.id).join(','))
  const converted = op.files.flatMap((item) => (item.convertTo === undefined ? [] : [`${item.id}:${item.convertTo}`]))
  if (converted.length > 0) query.set('convert', converted.join(','))
  return `${publicUrl.replace(/\/+$/, '')}/api/2.0/files/fileops/bulkdownload?${query.toString()}`
}

function presentOperation(op: FileOperation, files: unknown[], folders: unknown[], publicUrl: string) {
  const finished = op.finishedAt !== null
  return {
    id: op.id,
    operation: OPERATION_TYPE[op.kind],
    progress: finished ? 100 : 0,
    error: op.error,
    processed: String(op.files.length + op.folders.length),
    finished,
    url: op.kind === 'download' && finished && op.error === '' ? archiveUrl(publicUrl, op) : '',
    files,
    folders,
  }
}

/**
 * Folders, the trash and file operations (ONLYOFFICE Workspace paths under
 * /api/2.0/files). An operation's call answers the caller's operations once it ended, or
 * with it still running once FOLIO_OPERATION_WAIT passed; clients poll GET files/fileops.
 */
export function folderRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('preHandler', requirePortalUser(ctx))

    async function contents(request: FastifyRequest, ref: string) {
      const by = me(request)
      const query = listQueryOf(request)
      const listing = await ctx.app.folders.list(by, ref, query)
      const present = itemPresenter(ctx, by)
      const folders = await present.folders(listing.folders, listing.counts, listing.rootType, listing.access)
      const files = await present.files(listing.files, listing.rootType, listing.access)
      const counts = new Map([[listing.current.id, listing.currentCounts]])
      const levels = new Map([[listing.current.id, listing.level]])
      const [current] = await present.folders([listing.current], counts, listing.rootType, levels)
      // Someone a folder is shared with sees its path from their '@share' section down,
      // never the owner's folders above the shared one.
      const pathParts = listing.path.map((f) => f.id)
      return {
        files,
        folders,
        current,
        pathParts: listing.rootType === 'share' ? ['@share', ...pathParts] : pathParts,
        startIndex: query.offset,
        count: files.length + folders.length,
        total: listing.total,
        new: 0,
      }
    }

    async function shared(request: FastifyRequest) {
      const by = me(request)
      const listing = await shareListing(ctx, by, listQueryOf(request))
      const current = {
        ...shareSection(by),
        filesCount: listing.current.filesCount,
        foldersCount: listing.current.foldersCount,
      }
      return { ...listing, current }
    }

    app.get('/files/:folderId', async (request) => {
      const ref = folderRef(parseInput(folderRefParams, request.params).folderId)
      if (ref === '@root') {
        return success([await contents(request, '@my'), await shared(request), await contents(request, '@trash')])
      }
      if (ref === '@share') return success(await shared(request))
      if (isListingSearch(request)) return success(await searchListing(ctx, request, ref))
      return success(await contents(request, ref))
    })

    /** One folder with its counts, section and the caller's access. */
    async function presentOne(by: Principal, folder: FolderRecord) {
      const { counts, rootType, level } = await ctx.app.folders.get(by, folder.id)
      const [presented] = await itemPresenter(ctx, by).folders(
        [folder],
        new Map([[folder.id, counts]]),
        rootType,
        new Map([[folder.id, level]]),
      )
      return presented
    }

    app.get('/files/folder/:folderId', async (request) => {
      const by = me(request)
      const { folder } = await ctx.app.folders.get(by, folderRef(parseInput(folderRefParams, request.params).folderId))
      return success(await presentOne(by, folder))
    })

    app.get('/files/folder/:folderId/path', async (request) => {
      const by = me(request)
      const { path, rootType } = await ctx.app.folders.get(
        by,
        folderRef(parseInput(folderRefParams, request.params).folderId),
      )
      // A sharee's path starts at their '@share' section, as their listings' pathParts do.
      const presented: unknown[] = rootType === 'share' ? [shareSection(by)] : []
      for (const folder of path) presented.push(await presentOne(by, folder))
      return success(presented)
    })

    app.post('/files/folder/:folderId', async (request, reply) => {
      const by = me(request)
      const { title } = parseInput(titleBody, request.body)
      const created = await ctx.app.folders.create(
        by,
        folderRef(parseInput(folderRefParams, request.params).folderId),
        title,
      )
      return reply.code(201).send(success(await presentOne(by, created), 201))
    })

    app.put('/files/folder/:folderId', async (request) => {
      const by = me(request)
      const { title } = parseInput(titleBody, request.body)
      const renamed = await ctx.app.folders.rename(by, parseInput(folderRefParams, request.params).folderId, title)
      return success(await presentOne(by, renamed))
    })

    /**
     * One operation as Workspace reports it. Items a move or copy left are presented as
     * they are now (read again: the operation may have run on another instance); items
     * deleted for good, or no longer visible to the caller, by id and title only.
     */
    async function reportOperation(by: Principal, op: FileOperation) {
      if (op.kind === 'delete') return presentOperation(op, op.files, op.folders, ctx.config.publicUrl)
      const present = itemPresenter(ctx, by)
      const fileRecords: FileRecord[] = []
      const goneFiles: OperationItem[] = []
      for (const item of op.files) {
        const record = await visible(() => ctx.app.files.get(by, item.id))
        if (record === undefined) goneFiles.push(item)
        else fileRecords.push(record)
      }
      const folderRecords: FolderRecord[] = []
      const goneFolders: OperationItem[] = []
      const counts = new Map<string, { files: number; folders: number }>()
      for (const item of op.folders) {
        const found = await visible(() => ctx.app.folders.get(by, item.id))
        if (found === undefined) {
          goneFolders.push(item)
        } else {
          folderRecords.push(found.folder)
          counts.set(found.folder.id, found.counts)
        }
      }
      const files = [...(await present.files(fileRecords)), ...goneFiles]
      const folders = [...(await present.folders(folderRecords, counts)), ...goneFolders]
      return presentOperation(op, files, folders, ctx.config.publicUrl)
    }

    // Finished operations are reported once, but the one a call started is kept for the
    // poll after its reply (`started`): ONLYOFFICE's apps look for it there.
    async function operationsReply(by: Principal, started?: { id: string }) {
      const ops = await ctx.app.folders.takeOperations(by, started === undefined ? [] : [started.id])
      const presented = []
      for (const op of ops) presented.push(await reportOperation(by, op))
      return success(presented)
    }

    app.delete('/files/folder/:folderId', async (request) => {
      const by = me(request)
      const { immediately } = parseInput(immediatelyInput, { ...toRecord(request.query), ...toRecord(request.body) })
      const folderId = parseInput(folderRefParams, request.params).folderId
      const started = await ctx.app.folders.delete(by, { folderIds: [folderId], fileIds: [] }, immediately)
      return operationsReply(by, started)
    })

    app.put('/files/fileops/move', async (request) => {
      const by = me(request)
      const body = parseInput(moveCopyBody, request.body)
      const items = { folderIds: body.folderIds, fileIds: body.fileIds }
      const started = await ctx.app.folders.move(by, items, folderRef(body.destFolderId), body.conflictResolveType)
      return operationsReply(by, started)
    })

    app.put('/files/fileops/copy', async (request) => {
      const by = me(request)
      const body = parseInput(moveCopyBody, request.body)
      const items = { folderIds: body.folderIds, fileIds: body.fileIds }
      const started = await ctx.app.folders.copy(by, items, folderRef(body.destFolderId), body.conflictResolveType)
      return operationsReply(by, started)
    })

    app.put('/files/fileops/delete', async (request) => {
      const by = me(request)
      const body = parseInput(deleteItemsBody, request.body)
      const started = await ctx.app.folders.delete(
        by,
        { folderIds: body.folderIds, fileIds: body.fileIds },
        body.immediately,
      )
      return operationsReply(by, started)
    })

    app.put('/files/fileops/emptytrash', async (request) => {
      const by = me(request)
      const started = await ctx.app.folders.emptyTrash(by)
      return operationsReply(by, started)
    })

    // ONLYOFFICE's "stop all": Folio's operations are not stopped mid-way (each leaves its
    // items done), so this answers the caller's operations as they stand.
    app.put('/files/fileops/terminate', async (request) => operationsReply(me(request)))

    // Folio's own: puts trashed items back where they were deleted from.
    app.put('/files/fileops/restore', async (request) => {
      const by = me(request)
      const body = parseInput(deleteItemsBody, request.body)
      const started = await ctx.app.folders.restore(by, { folderIds: body.folderIds, fileIds: body.fileIds })
      return operationsReply(by, started)
    })

    for (const path of ['/files/fileops', '/files/fileops.json']) {
      app.get(path, async (request) => operationsReply(me(request)))
    }

    // Several items as one zip archive, as ONLYOFFICE's bulk download: the operation
    // checks the selection and finishes at once; its url fetches the archive.
    app.put('/files/fileops/bulkdownload', async (request) => {
      const by = me(request)
      const body = parseInput(bulkDownloadBody, request.body)
      const convert = new Map(body.fileConvertIds.map((pair) => [pair.key, pair.value]))
      const started = await ctx.app.folders.download(by, { folderIds: body.folderIds, fileIds: body.fileIds, convert })
      return operationsReply(by, started)
    })

    app.get('/files/fileops/bulkdownload', async (request, reply) => {
      const by = me(request)
      const plan = await ctx.app.folders.planArchive(by, parseInput(archiveQuery, request.query))
      return sendArchive(ctx, reply, by, plan)
    })

    // Workspace's conflict check before a move or copy: the files in the destination that
    // an item of the same name would replace (Overwrite) or be kept from (Skip).
    app.get('/files/fileops/move', async (request) => {
      const by = me(request)
      const query = parseInput(moveCheckQuery, request.query)
      const items = { folderIds: query.folderIds, fileIds: query.fileIds }
      const conflicts = await ctx.app.folders.conflicts(by, items, folderRef(query.destFolderId))
      return success(await itemPresenter(ctx, by).files(conflicts))
    })
  }
}

/** The object `value` is, or an empty one (a query or body of another shape). */
export function toRecord(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {}
  return Object.fromEntries(Object.entries(value))
}

/** What `read` finds, or undefined when it is gone or hidden from the caller (NOT_FOUND). */
async function visible<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read()
  } catch (error) {
    if (isDomainError(error) && error.code === 'NOT_FOUND') return undefined
    throw error
  }
}
