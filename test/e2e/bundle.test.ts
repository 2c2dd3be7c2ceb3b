/**
 * The server as `npm start` runs it: bin/folio.js runs the esbuild bundle of dist/, which
 * leaves some packages to Node's loader and loads them on first use (scripts/bundle.mjs).
 * Most tests run Folio from src/ in-process; this one sends the bundle through the parts
 * loaded on first use that no other spawned-process test reaches, so a package the bundle
 * resolves differently fails here rather than for a user.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { serveFolioAt, type ServedFolio } from '../support/folio-command.js'
import { call, signIn } from '../support/portal-client.js'
import { readZip } from '../support/zip.js'

const METRICS_TOKEN = 'bundle-metrics-token'

// The bundle serves the same whatever the store; one run is enough.
const skip = process.env.FOLIO_TEST_METADATA === 'postgres' ? 'covered by the SQLite run' : false

describe('the bundled server (bin/folio.js)', { skip }, () => {
  let dataDir = ''
  let folio: ServedFolio | undefined
  let url = ''

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'folio-bundle-'))
    const served = await serveFolioAt(dataDir, { FOLIO_METRICS_TOKEN: METRICS_TOKEN })
    folio = served.folio
    url = served.url
  })

  after(async () => {
    await folio?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  test('a folder downloads as a zip archive (yazl, loaded on the first download)', async () => {
    const token = await signIn(url)
    const folder = await call(url, 'POST', '/api/2.0/files/folder/@my', { token, body: { title: 'Bundled' } })
    assert.equal(folder.status, 201, folder.text)
    const folderId: string = folder.json.response.id
    const upload = await call(url, 'POST', `/api/2.0/files/${folderId}/upload?title=inside.txt`, {
      token,
      raw: 'made by the bundle',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(upload.status, 201, upload.text)
    const response = await fetch(`${url}/api/2.0/files/fileops/bulkdownload?folderIds=${folderId}`, {
      headers: { Authorization: token },
    })
    const bytes = Buffer.from(await response.arrayBuffer())
    assert.equal(response.status, 200, bytes.toString())
    const entries = await readZip(bytes)
    assert.equal(entries.get('Bundled/inside.txt')?.toString(), 'made by the bundle')
  })

  test('metrics answer (prom-client, loaded when metrics are on)', async () => {
    const reply = await call(url, 'GET', '/metrics', { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
    assert.equal(reply.status, 200, reply.text)
    assert.match(reply.text, /folio_http_requests_total\{/)
  })
})
