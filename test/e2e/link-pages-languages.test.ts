import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'

/**
 * The pages the server renders for a link's guest (a file's, a folder's, the 404 page) speak
 * the language of the request's Accept-Language: German, French, Spanish, else English.
 */
describe('link pages in the guest language', () => {
  let server: TestServer
  let token: string
  let folderId: string
  let fileId: string
  let folderKey: string
  let fileKey: string

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'off' })
    token = await signIn(server.url)
    const made = await call(server.url, 'POST', '/api/2.0/files/folder/@my', { token, body: { title: 'Reise' } })
    assert.equal(made.status, 201, made.text)
    folderId = made.json.response.id
    const uploaded = await call(server.url, 'POST', `/api/2.0/files/${folderId}/upload?title=plan.bin`, {
      token,
      headers: { 'Content-Type': 'application/octet-stream' },
      raw: 'x'.repeat(1536),
    })
    assert.ok(uploaded.status === 200 || uploaded.status === 201, uploaded.text)
    fileId = uploaded.json.response.id
    const folderLink = await call(server.url, 'PUT', `/api/2.0/files/folder/${folderId}/links`, {
      token,
      body: { access: 2 },
    })
    folderKey = new URL(folderLink.json.response.sharedTo.shareLink).searchParams.get('doc') ?? ''
    const fileLink = await call(server.url, 'PUT', `/api/2.0/files/${fileId}/sharedlink`, { token, body: { share: 2 } })
    assert.equal(fileLink.status, 200, fileLink.text)
    fileKey = new URL(fileLink.json.response.sharedTo.shareLink).searchParams.get('doc') ?? ''
  })
  after(() => server.dispose())

  const page = (id: string, key: string, language?: string) =>
    call(server.url, 'GET', `/s/${id}?doc=${encodeURIComponent(key)}`, {
      headers: language === undefined ? {} : { 'Accept-Language': language },
    })
  const timeText = (html: string) => /<time datetime="[^"]+">([^<]+)<\/time>/.exec(html)?.[1] ?? ''

  test('German asked first: the file page and the folder page in German, sizes and dates as Germans write them', async () => {
    const file = await page(fileId, fileKey, 'de-DE,de;q=0.9')
    assert.equal(file.status, 200, file.text)
    assert.match(file.text, /<html lang="de">/)
    assert.equal(file.headers.get('content-language'), 'de')
    assert.match(file.headers.get('vary') ?? '', /Accept-Language/)
    assert.match(file.text, /Geteilt von/)
    assert.match(file.text, />Herunterladen<\/a>/)
    assert.match(file.text, /Für diese Art von Datei gibt es keine Vorschau/)
    assert.match(file.text, /<span class="size">1,5 kB<\/span>/)
    assert.match(timeText(file.text), /^\d{1,2}\. \S+ \d{4}, \d{2}:\d{2} UTC$/)
    assert.doesNotMatch(file.text, /Shared by|>Download</)

    const folder = await page(folderId, folderKey, 'de-DE,de;q=0.9')
    assert.equal(folder.status, 200, folder.text)
    assert.match(folder.text, /<html lang="de">/)
    assert.equal(folder.headers.get('content-language'), 'de')
    assert.match(folder.text, /0 Ordner, 1 Datei/)
    assert.match(folder.text, /aria-label="Inhalt von Reise"/)
    assert.match(folder.text, /aria-label="plan\.bin herunterladen">Herunterladen<\/a>/)
    assert.match(folder.text, /1,5 kB · <time/)
    assert.match(timeText(folder.text), /^\d{1,2}\. \S+ \d{4}, \d{2}:\d{2} UTC$/)
  })

  test('q-values decide: French at 0.5 and Spanish at 0.8 is Spanish', async () => {
    const folder = await page(folderId, folderKey, 'fr;q=0.5, es;q=0.8')
    assert.match(folder.text, /<html lang="es">/)
    assert.equal(folder.headers.get('content-language'), 'es')
    assert.match(folder.text, /Compartido por/)
    assert.match(folder.text, /0 carpetas, 1 archivo/)
    assert.match(folder.text, />Descargar<\/a>/)
    const file = await page(fileId, fileKey, 'fr;q=0.5, es;q=0.8')
    assert.match(file.text, /<span class="size">1,5 kB<\/span>/)
    assert.match(timeText(file.text), /^\d{1,2} \S+ \d{4}, \d{1,2}:\d{2} UTC$/)
  })

  test('a language Folio does not speak, or none, is English', async () => {
    for (const language of ['ja-JP', undefined]) {
      const folder = await page(folderId, folderKey, language)
      assert.match(folder.text, /<html lang="en">/, String(language))
      assert.equal(folder.headers.get('content-language'), 'en')
      assert.match(folder.text, /Shared by/)
      assert.match(folder.text, /0 folders, 1 file/)
      const file = await page(fileId, fileKey, language)
      assert.match(file.text, /<span class="size">1\.5 kB<\/span>/)
      assert.match(timeText(file.text), /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M UTC$/)
    }
  })

  test("a revoked link's 404 page in French", async () => {
    const revoked = await call(server.url, 'PUT', `/api/2.0/files/${fileId}/sharedlink`, { token, body: { share: 0 } })
    assert.equal(revoked.status, 200, revoked.text)
    const gone = await page(fileId, fileKey, 'fr-FR,fr;q=0.9,en;q=0.8')
    assert.equal(gone.status, 404)
    assert.match(gone.text, /<html lang="fr">/)
    assert.equal(gone.headers.get('content-language'), 'fr')
    assert.match(gone.headers.get('vary') ?? '', /Accept-Language/)
    assert.match(gone.text, /<h1>Ce document n&#39;est pas ici<\/h1>/)
    assert.match(gone.text, />Retour à vos documents<\/a>/)
  })
})
