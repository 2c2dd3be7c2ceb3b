import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'

/**
 * FOLIO_OPERATION_WAIT=0: a move, copy or delete call is answered at once, its operation
 * running, as ONLYOFFICE answers its own, and clients poll GET files/fileops until the
 * operation says finished. A graceful stop lets running operations end first.
 */
describe('file operations that run on after their call', () => {
  let server: TestServer
  let token: string

  before(async () => {
    server = await startTestServer({ FOLIO_OPERATION_WAIT: '0' })
    token = await signIn(server.url)
  })
  after(() => server.dispose())

  const api = (method: string, path: string, body?: unknown) =>
    call(server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })

  interface ReportedOperation {
    id: string
    finished: boolean
    progress: number
    error: string
    folders: { id: string; title: string }[]
  }

  /** Polls the operations as a client does until `id` is reported finished. */
  async function untilFinished(id: string): Promise<ReportedOperation> {
    for (let i = 0; i < 500; i++) {
      const reply = await api('GET', '/files/fileops')
      assert.equal(reply.status, 200, reply.text)
      const op = (reply.json.response as ReportedOperation[]).find((o) => o.id === id)
      assert.ok(op !== undefined, `operation ${id} is listed until it is reported finished`)
      if (op.finished) return op
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`operation ${id} did not finish`)
  }

  async function folderOfFiles(title: string, count: number): Promise<string> {
    const created = await api('POST', '/files/folder/@my', { title })
    assert.equal(created.status, 201, created.text)
    const folderId: string = created.json.response.id
    for (let i = 0; i < count; i++) {
      const file = await api('POST', `/files/${folderId}/file`, { title: `Doc ${i}.docx` })
      assert.equal(file.status, 201, file.text)
    }
    return folderId
  }

  /** The operation the call started: the one of its reply not seen before. */
  function startedBy(reply: { json: { response: ReportedOperation[] } }, kind: string): ReportedOperation {
    const ops = reply.json.response
    assert.equal(ops.length, 1, `one ${kind} operation listed`)
    return ops[0] as ReportedOperation
  }

  test('a copy is answered with its operation, which polling reports finished with the new folder', async () => {
    const source = await folderOfFiles('Source', 12)
    const copied = await api('PUT', '/files/fileops/copy', { destFolderId: '@my', folderIds: [source], fileIds: [] })
    assert.equal(copied.status, 200, copied.text)
    const op = startedBy(copied, 'copy')
    const ended = op.finished ? op : await untilFinished(op.id)
    assert.equal(ended.error, '')
    assert.equal(ended.progress, 100)
    const copyId = ended.folders[0]?.id
    assert.ok(copyId !== undefined && copyId !== source)
    const listing = await api('GET', `/files/${copyId}`)
    assert.equal(listing.status, 200, listing.text)
    assert.equal(listing.json.response.files.length, 12, 'every file was copied')
  })

  test('a failure after the reply is reported in the operation, with its message', async () => {
    const folder = await folderOfFiles('Into itself', 0)
    const moved = await api('PUT', '/files/fileops/move', { destFolderId: folder, folderIds: [folder], fileIds: [] })
    // Answered at once (FOLIO_OPERATION_WAIT=0): the refusal comes with the operation.
    assert.equal(moved.status, 200, moved.text)
    const op = startedBy(moved, 'move')
    const ended = op.finished ? op : await untilFinished(op.id)
    assert.equal(ended.error, 'a folder cannot be moved into itself or its sub-folders')
  })

  test('a stop lets a running operation end: after a restart the copy is whole and reported finished', async () => {
    const source = await folderOfFiles('Before the stop', 20)
    const copied = await api('PUT', '/files/fileops/copy', { destFolderId: '@my', folderIds: [source], fileIds: [] })
    assert.equal(copied.status, 200, copied.text)
    const op = startedBy(copied, 'copy')
    server = await server.restart()
    token = await signIn(server.url)
    const ended = op.finished ? op : await untilFinished(op.id)
    assert.equal(ended.error, '')
    const copyId = ended.folders[0]?.id
    assert.ok(copyId !== undefined)
    const listing = await api('GET', `/files/${copyId}`)
    assert.equal(listing.json.response.files.length, 20, 'the copy ended before the store closed')
  })
})
