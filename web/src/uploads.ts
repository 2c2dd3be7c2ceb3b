import { API, errorOf, folderSegment, type ApiError, type FileItem } from './api'
import { formatSize } from './format'
import { t } from './i18n'

/** One file being sent, as the upload panel shows it. */
export interface Upload {
  id: number
  name: string
  size: number
  /** Bytes sent so far. */
  loaded: number
  state: 'queued' | 'uploading' | 'done' | 'failed' | 'cancelled'
  /** What went wrong, in words for people. */
  error?: string
  /** The stored file's name (Folio may add ' (2)' when the name is taken). */
  storedTitle?: string
}

/** Uploads running at once; the rest wait their turn. */
const PARALLEL = 3

/** A message for a failed upload that says what to do. */
export function uploadErrorMessage(error: ApiError, maxFileSize: number): string {
  if (error.status === 413 || error.type === 'PAYLOAD_TOO_LARGE') {
    return t('uploads.tooLarge', { size: formatSize(maxFileSize) })
  }
  if (error.type === 'NAME_INVALID') {
    return t('uploads.notAllowed', { reason: error.message.replace(/^invalid file name: /, '') })
  }
  if (error.status === 401) return t('uploads.sessionEnded')
  if (error.status === 0) return t('uploads.connectionLost')
  return error.message
}

/**
 * The queue behind the upload panel: files go up with XMLHttpRequest (the
 * only browser API that reports upload progress) as multipart to
 * POST /api/2.0/files/<folder>/upload; each can be cancelled.
 */
export class UploadQueue {
  private items: Upload[] = []
  private readonly requests = new Map<number, XMLHttpRequest>()
  private readonly files = new Map<number, { file: File; folder: string; createNewIfExist?: boolean }>()
  private readonly listeners = new Set<(items: Upload[]) => void>()
  private nextId = 1

  constructor(
    private readonly maxFileSize: () => number,
    private readonly onUploaded: (file: FileItem) => void,
  ) {}

  /** Current uploads, oldest first. */
  get list(): Upload[] {
    return this.items
  }

  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: (items: Upload[]) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Queues files for `folder` (the one on screen when they were picked); ones over the
   * size limit fail at once, without sending a byte.
   */
  add(files: Iterable<File>, folder = '@my', createNewIfExist?: boolean): void {
    for (const file of files) {
      const id = this.nextId++
      const upload: Upload = { id, name: file.name, size: file.size, loaded: 0, state: 'queued' }
      if (file.size > this.maxFileSize()) {
        upload.state = 'failed'
        upload.error = t('uploads.tooLarge', { size: formatSize(this.maxFileSize()) })
      } else {
        this.files.set(id, createNewIfExist === undefined ? { file, folder } : { file, folder, createNewIfExist })
      }
      this.items = [...this.items, upload]
    }
    this.changed()
    this.pump()
  }

  /** Stops an upload that is queued or under way. */
  cancel(id: number): void {
    const request = this.requests.get(id)
    if (request) {
      request.abort()
      return
    }
    if (this.files.delete(id)) this.update(id, { state: 'cancelled' })
  }

  /** Removes finished, failed and cancelled entries from the panel. */
  clearFinished(): void {
    this.items = this.items.filter((item) => item.state === 'queued' || item.state === 'uploading')
    this.changed()
  }

  private changed(): void {
    for (const listener of this.listeners) listener(this.items)
  }

  private update(id: number, patch: Partial<Upload>): void {
    this.items = this.items.map((item) => (item.id === id ? { ...item, ...patch } : item))
    this.changed()
  }

  private pump(): void {
    while (this.requests.size < PARALLEL) {
      const next = this.items.find((item) => item.state === 'queued' && this.files.has(item.id))
      if (!next) return
      this.start(next.id)
    }
  }

  private start(id: number): void {
    const queued = this.files.get(id)
    if (!queued) return
    const { file, folder, createNewIfExist } = queued
    this.files.delete(id)
    const request = new XMLHttpRequest()
    this.requests.set(id, request)
    const finish = (patch: Partial<Upload>) => {
      this.requests.delete(id)
      this.update(id, patch)
      this.pump()
    }
    // The name also goes in ?title= so any Unicode name survives multipart encoding.
    // createNewIfExist: false makes a same-named file's new version, true keeps both.
    const choice = createNewIfExist === undefined ? '' : `&createNewIfExist=${String(createNewIfExist)}`
    request.open('POST', `${API}/files/${folderSegment(folder)}/upload?title=${encodeURIComponent(file.name)}${choice}`)
    request.setRequestHeader('Accept', 'application/json')
    request.setRequestHeader('X-Folio-Request', '1')
    request.upload.addEventListener('progress', (event) => {
      this.update(id, { loaded: event.lengthComputable ? Math.min(event.loaded, file.size) : 0 })
    })
    request.addEventListener('load', () => {
      if (request.status === 201) {
        const stored = parseStored(request.responseText)
        finish({ state: 'done', loaded: file.size, storedTitle: stored?.title })
        if (stored) this.onUploaded(stored)
        return
      }
      const error = errorOf(request.status, request.getResponseHeader('Retry-After'), request.responseText)
      finish({ state: 'failed', error: uploadErrorMessage(error, this.maxFileSize()) })
    })
    request.addEventListener('error', () => finish({ state: 'failed', error: t('uploads.connectionLost') }))
    request.addEventListener('abort', () => finish({ state: 'cancelled' }))
    const form = new FormData()
    form.append('file', file, file.name)
    this.update(id, { state: 'uploading' })
    request.send(form)
  }
}

function parseStored(text: string): FileItem | undefined {
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null && 'response' in parsed) {
      const response: unknown = parsed.response
      if (typeof response === 'object' && response !== null && 'id' in response && 'title' in response) {
        return response as FileItem
      }
    }
  } catch {
    // fall through
  }
  return undefined
}
