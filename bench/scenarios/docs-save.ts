import { createServer, type Server } from 'node:http'
import { startDocsSimulator, type DocsSimulator, type EditorConfig } from '../../test/support/docs-server-simulator.js'
import { startBaseline } from '../baselines/launch.js'
import { bodyBuffer, bodySha256 } from '../body.js'
import { uploadFile } from '../folio-api.js'
import { startFolioProcess, type FolioProcess } from '../folio-process.js'
import { downloadHash, jsonCall, pick } from '../http.js'
import { sampleRss } from '../memory.js'
import { MiB } from '../options.js'
import { freeRecentPages } from '../page-cache.js'
import { limitFigure, ratioFigure, type Recorder } from '../results.js'
import { median, SkipScenario, type Scenario, type ScenarioContext } from '../scenario.js'
import { peakRssNote } from './uploads.js'

const JWT_SECRET = 'bench-docs-jwt-secret'
/** Issue 14: peak resident memory during any upload, PutFile or editor save. */
const PEAK_RSS_LIMIT_MIB = 110

/**
 * Scenario 4: an ONLYOFFICE status-2 save of a big file. The Docs simulator
 * (test/support) opens the document, "edits" it to the test body and closes the
 * editor; Folio downloads the result from the simulator and stores it before
 * answering the callback. Compared with a raw download of the same bytes to disk.
 */
export const docsSave: Scenario = {
  id: 4,
  title: 'ONLYOFFICE status-2 save of a 100 MiB file',
  async run(ctx: ScenarioContext, record: Recorder) {
    const size = ctx.options.docsSaveSize
    const reps = ctx.options.quick ? 2 : 3
    const content = bodyBuffer(size)
    const expected = bodySha256(size)
    const sim = await startDocsSimulator({ jwtSecret: JWT_SECRET, maxDownloadBytes: 2 * size })
    const source = await serveBytes(content)
    let folio: FolioProcess | undefined
    const raw = await startBaseline('raw-download', { SAVE_DIR: await ctx.workDir('raw-download') })
    try {
      folio = await startFolioProcess({
        dataDir: await ctx.workDir('docs-save'),
        cpuProfDir: ctx.options.cpuProfDir,
        env: { FOLIO_DOCS_URL: sim.url, FOLIO_DOCS_JWT_SECRET: JWT_SECRET },
      })
      const token = await folio.signIn()
      const { id } = await uploadFile(folio, token, 'big.docx', 1024)
      const idleBytes = folio.memory().rss

      const folioMs: number[] = []
      const rawMs: number[] = []
      let peak = 0
      let growth = 0
      const scratch = await ctx.workDir('page-cache')
      for (let rep = 0; rep < reps; rep++) {
        await freeRecentPages(scratch, size)
        const fetched = await jsonCall(raw.url, 'POST', `/?url=${encodeURIComponent(source.url)}`)
        if (fetched.status !== 200) throw new Error(`raw download answered ${fetched.status} ${fetched.text}`)
        rawMs.push(fetched.ms)
        await jsonCall(raw.url, 'DELETE', '/')

        await freeRecentPages(scratch, size)
        const save = await saveOnce(folio, sim, token, id, content)
        folioMs.push(save.ms)
        peak = Math.max(peak, save.peakBytes)
        ctx.log(
          `save ${rep + 1}: RSS ${(save.rssBefore / MiB).toFixed(1)} MiB before, peak ${(save.peakBytes / MiB).toFixed(1)} MiB`,
        )
        growth = Math.max(growth, save.peakBytes - save.rssBefore)
        record.check(`save ${rep + 1}: Docs got {"error":0} for status 2 on the first try`, save.ok, save.detail)
      }
      ctx.log(`saves took ${folioMs.map((ms) => ms.toFixed(0)).join(', ')} ms`)

      const stored = await downloadHash(`${folio.url}/api/2.0/files/file/${id}/download`, {
        authorization: token,
      })
      record.check(
        'the saved file holds exactly the edited bytes (SHA-256)',
        stored.status === 200 && stored.sha256 === expected && stored.bytes === size,
        `status ${stored.status}, ${stored.bytes} bytes, sha256 ${stored.sha256.slice(0, 16)}…`,
      )
      const info = await jsonCall(folio.url, 'GET', `/api/2.0/files/file/${id}`, { token })
      record.check(
        `each save made one new version (${reps + 1} in all)`,
        pick(info.json, 'response', 'version') === reps + 1,
        `version ${String(pick(info.json, 'response', 'version'))}`,
      )

      const throughput = (ms: number) => size / MiB / (ms / 1000)
      record.figure(
        ratioFigure({
          metric: `status-2 save of ${size / MiB} MiB throughput`,
          value: throughput(median(folioMs)),
          baseline: throughput(median(rawMs)),
          baselineName: 'raw download to disk + fsync',
          unit: 'MiB/s',
          target: { min: 0.9 },
        }),
      )
      record.figure(
        limitFigure({
          metric: 'status-2 save peak RSS',
          value: peak / MiB,
          unit: 'MiB',
          max: PEAK_RSS_LIMIT_MIB,
        }),
      )
      // "Memory flat": a save that held the body would grow by at least the whole body.
      record.figure(
        limitFigure({
          metric: 'status-2 save RSS growth over idle (memory flat: under half the body)',
          value: growth / MiB,
          unit: 'MiB',
          max: size / MiB / 2,
        }),
      )
      // What explains the figures, whether they meet their targets or not.
      record.note(peakRssNote(idleBytes))
    } finally {
      await folio?.stop()
      await raw.stop()
      await new Promise((resolve) => source.server.close(resolve))
      await sim.close()
    }
  },
}

/** Opens the file in the simulator, replaces its content, closes: one status-2 save. */
async function saveOnce(folio: FolioProcess, sim: DocsSimulator, token: string, fileId: string, content: Buffer) {
  const opened = await jsonCall(folio.url, 'GET', `/api/2.0/files/file/${fileId}/openedit`, { token })
  if (opened.status === 404 && !pick(opened.json, 'error', 'type')) {
    throw new SkipScenario('the ONLYOFFICE integration is not mounted (openedit is 404)')
  }
  const config = pick(opened.json, 'response')
  if (opened.status !== 200 || !isEditorConfig(config)) {
    throw new Error(`openedit answered ${opened.status} ${opened.text.slice(0, 300)}`)
  }
  const session = await sim.openEditor(config)
  session.edit(content)
  const before = sim.callbacks.length
  const rssBefore = folio.memory().rss
  const kernelPeak = folio.resetPeak()
  const sampler = sampleRss(folio.pid)
  const started = Date.now()
  await session.disconnect({ explicitClose: true })
  const ended = Date.now()
  const sampled = sampler.stop()
  const saves = sim.callbacks.slice(before).filter((c) => c.status === 2)
  const first = saves[0]
  return {
    // From the moment the simulator sent status 2 to the end of Folio's reply.
    ms: ended - (first?.sentAt ?? started),
    rssBefore,
    peakBytes: kernelPeak ? Math.max(folio.memory().peak, sampled) : sampled,
    ok: saves.length === 1 && first?.ok === true,
    detail:
      saves.length === 0
        ? 'no status 2 was sent'
        : saves.map((c) => `HTTP ${c.httpStatus} ${c.reply.slice(0, 80)}`).join('; '),
  }
}

function isEditorConfig(value: unknown): value is EditorConfig {
  return typeof value === 'object' && value !== null && 'document' in value
}

/** A plain node:http server answering every GET with the same bytes (the raw download's source). */
async function serveBytes(bytes: Buffer): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume()
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(bytes.length),
    })
    response.end(bytes)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { url: `http://127.0.0.1:${port}/document.docx`, server }
}
