import { after, before, beforeEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createPublicKey, generateKeyPairSync } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import {
  OnlyofficeWopiClient,
  startDiscoveryServer,
  type OnlyofficeWopiClientOptions,
} from './onlyoffice-wopi-client.js'
import { buildProofUrl, parseDiscovery, proofTimestampToMs, verifyProof } from '../../src/protocols/wopi/proof-keys.js'

/** One request as the throwaway host saw it. */
interface Seen {
  method: string
  url: string
  headers: Record<string, string | string[] | undefined>
  /** Header names exactly as they went over the wire. */
  rawNames: string[]
  rawValues: Map<string, string>
  body: Buffer
}

interface Reply {
  status: number
  headers?: Record<string, string>
  body?: string | Buffer
}
type Responder = (seen: Seen) => Reply

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
/** Header names DS writes with this exact casing. */
const CASED_NAMES = ['X-WOPI-Proof', 'X-WOPI-ProofOld', 'X-WOPI-TimeStamp', 'X-WOPI-SessionId']
const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
const FILE_ID = 'f1Le:Id~x'
const TOKEN = 'tok+en/ü =&x'
const TEMPLATE = Buffer.from('PK-blank-template')
const CONTENTS = Buffer.from('PK-document-bytes')

const current = generateKeyPairSync('rsa', { modulusLength: 2048 })
const old = generateKeyPairSync('rsa', { modulusLength: 2048 })

let seen: Seen[] = []
let respond: Responder = () => ({ status: 500 })
let base = ''
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    const rawNames: string[] = []
    const rawValues = new Map<string, string>()
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] ?? ''
      rawNames.push(name)
      rawValues.set(name, req.rawHeaders[i + 1] ?? '')
    }
    const request: Seen = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      rawNames,
      rawValues,
      body: Buffer.concat(chunks),
    }
    seen.push(request)
    const reply = respond(request)
    res.writeHead(reply.status, reply.headers ?? {})
    res.end(reply.body)
  })
})

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  assert.ok(address !== null && typeof address !== 'string')
  base = `http://127.0.0.1:${(address satisfies AddressInfo).port}`
})

after(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

beforeEach(() => {
  seen = []
})

const wopiSrc = () => `${base}/wopi/files/${FILE_ID}`
const encodedToken = encodeURIComponent(TOKEN)
const filePath = `/wopi/files/${FILE_ID}?access_token=${encodedToken}`
const contentsPath = `/wopi/files/${FILE_ID}/contents?access_token=${encodedToken}`

function newClient(extra: Partial<OnlyofficeWopiClientOptions> = {}): OnlyofficeWopiClient {
  return new OnlyofficeWopiClient({
    wopiSrc: wopiSrc(),
    accessToken: TOKEN,
    proofKeys: { current: current.privateKey, old: old.privateKey },
    blankTemplate: TEMPLATE,
    getFileRetryDelayMs: 0,
    ...extra,
  })
}

function header(request: Seen | undefined, name: string): string | undefined {
  const value = request?.headers[name.toLowerCase()]
  return Array.isArray(value) ? value.join(', ') : value
}

function override(request: Seen): string {
  return `${request.method} ${header(request, 'x-wopi-override') ?? ''}`.trim()
}

const baseInfo = {
  BaseFileName: 'Report.docx',
  Size: 17,
  Version: 'v7',
  LastModifiedTime: '2025-06-01T10:00:00.0000000Z',
  UserId: 'user-42',
  UserCanWrite: true,
  SupportsLocks: true,
  SupportsUpdate: true,
}

/** A host that answers like a well-behaved WOPI server. */
function host(fileInfo: Record<string, unknown>, overrides: Partial<Record<string, Responder>> = {}): Responder {
  const json = (body: unknown): Reply => ({
    status: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  return (request) => {
    const key = override(request)
    const custom = overrides[key]
    if (custom) return custom(request)
    if (key === 'GET' && request.url.includes('/contents')) return { status: 200, body: CONTENTS }
    if (key === 'GET') {
      return json(fileInfo)
    }
    if (key === 'POST PUT') {
      return json({ LastModifiedTime: '2025-06-01T11:00:00Z' })
    }
    return { status: 200 }
  }
}

describe('OnlyofficeWopiClient sends what Document Server sends', () => {
  test('every request carries the B4 common headers and a proof the host can verify', async () => {
    respond = host(baseInfo)
    const before = Date.now()
    const client = newClient()
    await client.checkFileInfo()
    await client.getFile()
    await client.lock('L')
    await client.putFile(CONTENTS, { lockId: 'L' })
    client.close()

    assert.equal(seen.length, 4)
    const correlationIds = new Set<string>()
    const sessionIds = new Set<string>()
    for (const request of seen) {
      assert.equal(request.rawValues.get('User-Agent'), 'Node.js/6.13')
      assert.equal(request.rawValues.get('Connection'), 'Keep-Alive')
      assert.equal(header(request, 'accept'), 'application/json, text/plain, */*')
      assert.equal(header(request, 'accept-encoding'), 'gzip, compress, deflate, br')
      assert.equal(header(request, 'authorization'), undefined)
      assert.equal(header(request, 'x-wopi-clientversion'), '4.1.2.37')
      const correlation = header(request, 'x-wopi-correlationid') ?? ''
      assert.match(correlation, UUID_V4)
      correlationIds.add(correlation)
      sessionIds.add(header(request, 'x-wopi-sessionid') ?? '')
      for (const name of CASED_NAMES) {
        assert.ok(request.rawNames.includes(name), `${name} keeps DS's casing`)
      }

      const ticks = header(request, 'x-wopi-timestamp') ?? ''
      const sentAt = proofTimestampToMs(ticks)
      assert.ok(sentAt >= before && sentAt <= Date.now(), 'X-WOPI-TimeStamp is now in .NET ticks')
      const target = request.url.includes('/contents') ? 'contents' : 'file'
      const url = buildProofUrl(wopiSrc(), TOKEN, target)
      assert.equal(`${base}${request.url}`, url, 'the request URL is the one that was signed')
      const proof = header(request, 'x-wopi-proof')
      const proofOld = header(request, 'x-wopi-proofold')
      const now = Date.now()
      const withCurrent = verifyProof({
        accessToken: TOKEN,
        url,
        timestamp: ticks,
        proof,
        keys: { current: createPublicKey(current.privateKey) },
        now,
      })
      assert.deepEqual(withCurrent, { ok: true, matched: 'proof-current' })
      // X-WOPI-ProofOld is signed with the old key: a host that only knows the old key
      // as its current one accepts the request through ProofOld.
      const withOld = verifyProof({
        accessToken: TOKEN,
        url,
        timestamp: ticks,
        proof,
        proofOld,
        keys: { current: createPublicKey(old.privateKey) },
        now,
      })
      assert.deepEqual(withOld, { ok: true, matched: 'proofold-current' })
    }
    assert.equal(correlationIds.size, 4, 'a new correlation id per request')
    assert.deepEqual([...sessionIds], [client.sessionId], 'one session id per simulator')
  })

  test('sends no proof headers when no keys are configured', async () => {
    respond = host(baseInfo)
    const client = newClient({ proofKeys: undefined })
    await client.checkFileInfo()
    client.close()
    assert.equal(header(seen[0], 'x-wopi-proof'), undefined)
    assert.equal(header(seen[0], 'x-wopi-proofold'), undefined)
    assert.ok(header(seen[0], 'x-wopi-timestamp'))
  })

  test('lock commands are body-less POSTs with Content-Length 0 and a form type', async () => {
    respond = host(baseInfo)
    const client = newClient()
    await client.lock('lock-1')
    await client.refreshLock('lock-1')
    await client.unlock('lock-1')
    client.close()
    assert.deepEqual(
      seen.map((request) => [override(request), request.url, header(request, 'x-wopi-lock')]),
      [
        ['POST LOCK', filePath, 'lock-1'],
        ['POST REFRESH_LOCK', filePath, 'lock-1'],
        ['POST UNLOCK', filePath, 'lock-1'],
      ],
    )
    for (const request of seen) {
      assert.equal(header(request, 'content-length'), '0')
      assert.equal(header(request, 'content-type'), 'application/x-www-form-urlencoded')
      assert.equal(header(request, 'transfer-encoding'), undefined)
      assert.equal(request.body.length, 0)
    }
  })

  test('PutFile sends only true X-LOOL flags and no X-WOPI-Lock without a lock', async () => {
    respond = host(baseInfo)
    const client = newClient()
    await client.checkFileInfo()
    await client.putFile(CONTENTS, { editors: 'u1', isModifiedByUser: true, isAutosave: false })
    await client.putFile(CONTENTS, { lockId: 'L', isExitSave: true, timestamp: 'T1' })
    client.close()
    const [first, second] = seen.slice(1)
    assert.equal(first?.url, contentsPath)
    assert.equal(header(first, 'x-wopi-override'), 'PUT')
    assert.equal(header(first, 'x-wopi-lock'), undefined)
    assert.equal(header(first, 'x-wopi-editors'), 'u1')
    assert.equal(header(first, 'x-lool-wopi-ismodifiedbyuser'), 'true')
    assert.equal(header(first, 'x-lool-wopi-isautosave'), undefined)
    assert.equal(header(first, 'x-lool-wopi-isexitsave'), undefined)
    assert.equal(header(first, 'x-lool-wopi-timestamp'), undefined)
    assert.equal(header(first, 'content-type'), DOCX_MIME)
    assert.equal(header(first, 'content-length'), String(CONTENTS.length))
    assert.deepEqual(first?.body, CONTENTS)
    assert.equal(header(second, 'x-wopi-lock'), 'L')
    assert.equal(header(second, 'x-wopi-editors'), undefined)
    assert.equal(header(second, 'x-lool-wopi-isexitsave'), 'true')
    assert.equal(header(second, 'x-lool-wopi-ismodifiedbyuser'), undefined)
    assert.equal(header(second, 'x-lool-wopi-timestamp'), 'T1')
  })

  test('GetFile asks for at most 100 MiB', async () => {
    respond = host(baseInfo)
    const client = newClient()
    const reply = await client.getFile()
    client.close()
    assert.equal(seen[0]?.method, 'GET')
    assert.equal(seen[0]?.url, contentsPath)
    assert.equal(header(seen[0], 'x-wopi-maxexpectedsize'), '104857600')
    assert.equal(header(seen[0], 'x-wopi-override'), undefined)
    assert.deepEqual(reply.body, CONTENTS)
  })

  test('PutRelativeFile and RenameFile send UTF-7 names', async () => {
    respond = host(baseInfo, {
      'POST PUT_RELATIVE': () => ({ status: 200, body: '{"Name":"x.docx","Url":"u"}' }),
      'POST RENAME_FILE': () => ({ status: 200, body: '{"Name":"a+b c~"}' }),
    })
    const client = newClient()
    const saved = await client.putRelativeFile(CONTENTS, 'Новый документ.docx')
    const converted = await client.putRelativeFile(CONTENTS, '.xlsx', { fileConversion: true })
    const renamed = await client.renameFile('L', 'a+b c~')
    client.close()
    const [saveAs, convert, rename] = seen
    assert.equal(saveAs?.url, filePath)
    assert.equal(header(saveAs, 'x-wopi-override'), 'PUT_RELATIVE')
    const target = '+BB0EPgQyBEsEOQAgBDQEPgQ6BEMEPAQ1BD0EQg-.docx'
    assert.equal(header(saveAs, 'x-wopi-suggestedtarget'), target)
    assert.equal(header(saveAs, 'x-wopi-lock'), undefined)
    assert.equal(header(saveAs, 'x-wopi-size'), undefined)
    assert.equal(header(saveAs, 'x-wopi-fileconversion'), undefined)
    assert.equal(header(saveAs, 'content-type'), DOCX_MIME)
    assert.deepEqual(saveAs?.body, CONTENTS)
    assert.equal(header(convert, 'x-wopi-suggestedtarget'), '.xlsx')
    assert.equal(header(convert, 'x-wopi-fileconversion'), 'true')
    assert.equal(header(convert, 'content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
    assert.equal(header(rename, 'x-wopi-override'), 'RENAME_FILE')
    assert.equal(header(rename, 'x-wopi-lock'), 'L')
    assert.equal(header(rename, 'x-wopi-requestedname'), 'a+-b+ACA-c+AH4-')
    assert.equal(header(rename, 'content-length'), '0')
    assert.deepEqual(saved.body, { Name: 'x.docx', Url: 'u' })
    assert.equal(converted.ok, true)
    assert.deepEqual(renamed.body, { Name: 'a+b c~' })
  })

  test('RenameFile cuts the name to FileNameMaxLength before encoding', async () => {
    respond = host({ ...baseInfo, FileNameMaxLength: 5 })
    const client = newClient()
    await client.checkFileInfo()
    await client.renameFile('L', 'abcdefgh')
    client.close()
    assert.equal(header(seen[1], 'x-wopi-requestedname'), 'abcde')
  })

  test('only 200/204 (POST) and 200/206 (GET) succeed; redirects are not followed', async () => {
    const client = newClient()
    respond = () => ({ status: 201 })
    assert.equal((await client.lock('L')).ok, false)
    respond = () => ({ status: 204 })
    assert.equal((await client.lock('L')).ok, true)
    respond = () => ({ status: 206, body: 'part' })
    assert.equal((await client.getFile()).ok, true)
    respond = () => ({ status: 302, headers: { Location: `${base}/elsewhere` } })
    seen = []
    const redirected = await client.getFile()
    client.close()
    assert.equal(redirected.ok, false)
    assert.equal(redirected.status, 302)
    assert.equal(seen.length, 1)
  })

  test('an unreachable host gives status 0, not an exception', async () => {
    const client = newClient({ wopiSrc: 'http://127.0.0.1:1/wopi/files/x' })
    const reply = await client.lock('L')
    client.close()
    assert.equal(reply.status, 0)
    assert.equal(reply.ok, false)
    assert.ok(reply.error)
  })
})

describe('openForEditing follows B2', () => {
  test('empty file: CheckFileInfo, template PutFile unlocked, LOCK(fileId), GetFile', async () => {
    respond = host({ ...baseInfo, Size: 0 })
    const client = newClient()
    const outcome = await client.openForEditing()
    client.close()
    assert.deepEqual(
      seen.map((request) => [override(request), request.url]),
      [
        ['GET', filePath],
        ['POST PUT', contentsPath],
        ['POST LOCK', filePath],
        ['GET', contentsPath],
      ],
    )
    const [, put, lock] = seen
    assert.equal(header(put, 'x-wopi-lock'), undefined)
    assert.equal(header(put, 'x-wopi-editors'), 'user-42')
    assert.equal(header(put, 'x-lool-wopi-ismodifiedbyuser'), undefined)
    assert.equal(header(put, 'x-lool-wopi-timestamp'), undefined)
    assert.deepEqual(put?.body, TEMPLATE)
    assert.equal(header(lock, 'x-wopi-lock'), 'f1Le_Id_x', 'lock id is the sanitized fileId')
    assert.equal(outcome.mode, 'edit')
    assert.equal(outcome.docId, 'f1Le_Id_x')
    assert.equal(outcome.lockId, 'f1Le_Id_x')
    assert.deepEqual(outcome.contents, CONTENTS)
    assert.equal(outcome.fileInfo.Size, TEMPLATE.length)
  })

  test('a failed template PutFile leaves Size 0, so no GetFile follows', async () => {
    respond = host({ ...baseInfo, Size: 0 }, { 'POST PUT': () => ({ status: 409 }) })
    const client = newClient()
    const outcome = await client.openForEditing()
    client.close()
    assert.deepEqual(seen.map(override), ['GET', 'POST PUT', 'POST LOCK'])
    assert.ok(outcome.mode === 'edit')
    assert.equal(outcome.contents, undefined)
  })

  test('a failed LOCK reopens in view mode with the view docId and no further writes', async () => {
    respond = host(baseInfo, {
      'POST LOCK': () => ({ status: 409, headers: { 'X-WOPI-Lock': 'someone-else' } }),
    })
    const client = newClient()
    const outcome = await client.openForEditing()
    assert.deepEqual(seen.map(override), ['GET', 'POST LOCK', 'GET'])
    assert.ok(outcome.mode === 'view')
    assert.equal(outcome.viewReason, 'lock-failed')
    assert.equal(outcome.docId, 'view.f1Le_Id_x.2025-06-01T10_00_00.0000000Z')
    assert.equal(outcome.lockId, undefined)
    await assert.rejects(client.closeWithSave(CONTENTS, 'user-42'), /no edit session is open/)
    client.close()
    assert.equal(seen.length, 3, 'view mode never saves or unlocks')
  })

  test('the view docId falls back to Version without LastModifiedTime', async () => {
    const info = { ...baseInfo, LastModifiedTime: undefined }
    respond = host(info, { 'POST LOCK': () => ({ status: 500 }) })
    const client = newClient()
    const outcome = await client.openForEditing()
    client.close()
    assert.ok(outcome.mode === 'view')
    assert.equal(outcome.docId, 'view.f1Le_Id_x.v7')
  })

  test('a user without edit rights gets view mode and no LOCK', async () => {
    respond = host({ ...baseInfo, UserCanWrite: false })
    const client = newClient()
    const outcome = await client.openForEditing()
    client.close()
    assert.deepEqual(seen.map(override), ['GET', 'GET'])
    assert.ok(outcome.mode === 'view')
    assert.equal(outcome.viewReason, 'no-edit-rights')
  })

  test('without SupportsLocks DS edits but never locks or unlocks', async () => {
    respond = host({ ...baseInfo, SupportsLocks: false })
    const client = newClient()
    const outcome = await client.openForEditing()
    await client.closeWithSave(CONTENTS, 'user-42')
    client.close()
    assert.ok(outcome.mode === 'edit')
    assert.deepEqual(seen.map(override), ['GET', 'GET', 'POST PUT'])
    assert.equal(header(seen[2], 'x-wopi-lock'), undefined)
  })

  test('a failing CheckFileInfo stops the open', async () => {
    respond = () => ({ status: 401 })
    const client = newClient()
    const outcome = await client.openForEditing()
    client.close()
    assert.equal(seen.length, 1)
    assert.ok(outcome.mode === 'error')
    assert.equal(outcome.stage, 'CheckFileInfo')
    assert.equal(outcome.reply.status, 401)
  })

  test('GetFile is tried 3 times before the open fails', async () => {
    respond = host(baseInfo, {
      GET: (request) =>
        request.url.includes('/contents') ? { status: 500 } : { status: 200, body: JSON.stringify(baseInfo) },
    })
    const client = newClient()
    const outcome = await client.openForEditing()
    client.close()
    assert.deepEqual(seen.map(override), ['GET', 'POST LOCK', 'GET', 'GET', 'GET'])
    assert.ok(outcome.mode === 'error')
    assert.equal(outcome.stage, 'GetFile')
  })
})

describe('closing follows B5', () => {
  test('exit save: PutFile with IsExitSave, IsModifiedByUser, editor, timestamp; UNLOCK', async () => {
    respond = host(baseInfo)
    const client = newClient()
    await client.openForEditing()
    seen = []
    const result = await client.closeWithSave(CONTENTS, 'user-42')
    client.close()
    assert.deepEqual(seen.map(override), ['POST PUT', 'POST UNLOCK'])
    const [put, unlock] = seen
    assert.equal(header(put, 'x-wopi-lock'), 'f1Le_Id_x')
    assert.equal(header(put, 'x-wopi-editors'), 'user-42')
    assert.equal(header(put, 'x-lool-wopi-isexitsave'), 'true')
    assert.equal(header(put, 'x-lool-wopi-ismodifiedbyuser'), 'true')
    assert.equal(header(put, 'x-lool-wopi-isautosave'), undefined)
    assert.equal(header(put, 'x-lool-wopi-timestamp'), '2025-06-01T10:00:00.0000000Z')
    assert.equal(header(unlock, 'x-wopi-lock'), 'f1Le_Id_x')
    assert.equal(result.putFile?.ok, true)
    assert.equal(result.unlock?.ok, true)
  })

  test('UNLOCK is still sent when the exit PutFile fails, and PutFile is not retried', async () => {
    respond = host(baseInfo)
    const client = newClient()
    await client.openForEditing()
    respond = host(baseInfo, { 'POST PUT': () => ({ status: 500 }) })
    seen = []
    const result = await client.closeWithSave(CONTENTS, 'user-42')
    client.close()
    assert.deepEqual(seen.map(override), ['POST PUT', 'POST UNLOCK'])
    assert.equal(result.putFile?.ok, false)
  })

  test('a forcesave echoes the PutFile reply LastModifiedTime and does not unlock', async () => {
    respond = host(baseInfo)
    const client = newClient()
    await client.openForEditing()
    seen = []
    await client.forceSave(CONTENTS, 'user-42', 'button')
    await client.forceSave(CONTENTS, 'user-42', 'command')
    client.close()
    assert.deepEqual(seen.map(override), ['POST PUT', 'POST PUT'])
    const [button, command] = seen
    assert.equal(header(button, 'x-lool-wopi-ismodifiedbyuser'), 'true')
    assert.equal(header(button, 'x-lool-wopi-isautosave'), undefined)
    assert.equal(header(button, 'x-lool-wopi-timestamp'), '2025-06-01T10:00:00.0000000Z')
    assert.equal(header(command, 'x-lool-wopi-isautosave'), 'true')
    assert.equal(header(command, 'x-lool-wopi-timestamp'), '2025-06-01T11:00:00Z')
  })
})

describe('startDiscoveryServer', () => {
  test('serves one-line discovery XML whose proof-key holds the given public keys', async () => {
    const discovery = await startDiscoveryServer({
      publicKeys: { current: current.privateKey, old: old.privateKey },
    })
    try {
      const response = await fetch(discovery.url)
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('content-type'), 'text/xml')
      const xml = await response.text()
      assert.ok(!xml.includes('\n'))
      const parsed = parseDiscovery(xml)
      assert.ok(parsed.proofKey?.current.equals(createPublicKey(current.privateKey)))
      assert.ok(parsed.proofKey?.old?.equals(createPublicKey(old.privateKey)))
      const edit = parsed.actions.find((x) => x.app === 'Word' && x.ext === 'docx' && x.name === 'edit')
      assert.equal(edit?.requires, 'locks,update')
      const prefix = `${discovery.baseUrl}/hosting/wopi/word/edit?<rs=DC_LLCC&>`
      assert.ok(edit?.urlsrc.startsWith(prefix))
      assert.equal((await fetch(`${discovery.baseUrl}/other`)).status, 404)
    } finally {
      await discovery.close()
    }
  })

  test('publishes no proof-key without keys', async () => {
    const discovery = await startDiscoveryServer()
    try {
      const parsed = parseDiscovery(await (await fetch(discovery.url)).text())
      assert.equal(parsed.proofKey, undefined)
      assert.ok(parsed.actions.length > 20)
    } finally {
      await discovery.close()
    }
  })
})
