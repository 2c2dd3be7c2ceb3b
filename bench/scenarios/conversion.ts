import { spawn } from 'node:child_process'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { openLibreOfficeConverter } from '../../src/drivers/converter-libreoffice/index.js'
import { docxWithText } from '../../test/support/office-documents.js'
import { uploadFile } from '../folio-api.js'
import { startFolioProcess, type FolioProcess } from '../folio-process.js'
import { downloadHash, pickString, send } from '../http.js'
import { readMemory, sampleRss } from '../memory.js'
import { MiB } from '../options.js'
import { limitFigure, ratioFigure, type Recorder } from '../results.js'
import { median, SkipScenario, type Scenario, type ScenarioContext } from '../scenario.js'

const CONVERSION_NOTE = [
  'Each pool worker is a headless soffice.bin started once, with its own profile folder, and a',
  "small Python bridge (Debian's python3-uno) that loads and stores documents over UNO on a",
  'private pipe, answering Node in JSON lines (src/drivers/converter-libreoffice/). A cold',
  'soffice --convert-to starts the whole office for every document (about 2-5 s on this',
  'machine), which the pool pays once per worker; a pooled conversion of this document costs',
  'the load, the layout and the PDF export alone. Both sides keep 2 office processes busy.',
  'Then through a running Folio with one office process: its own peak RSS while it converts new',
  "documents (the offices' RSS apart; the 110 MiB limit is the one scenario 3 holds uploads to),",
  "and a kept PDF rendition's download against a plain download of a file of the same size.",
].join(' ')

/** Office processes on each side: the pool's workers, and cold processes run at once. */
const WORKERS = 2

/** A cold `soffice --headless --convert-to pdf`, on a profile folder made before timing. */
function coldConversion(dir: string, profile: string, input: string, n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'soffice',
      [
        '--headless',
        `-env:UserInstallation=file://${profile}`,
        '--convert-to',
        'pdf',
        '--outdir',
        join(dir, `cold-${n}`),
        input,
      ],
      { stdio: 'ignore' },
    )
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`soffice exited with ${code}`))))
  })
}

/** Runs `count` jobs on `WORKERS` lanes; returns jobs per second. */
async function rate(count: number, job: (n: number, lane: number) => Promise<void>): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, lane) => {
      while (next < count) await job(next++, lane)
    }),
  )
  return count / ((performance.now() - started) / 1000)
}

function hasSoffice(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('soffice', ['--version'], { stdio: 'ignore' })
    child.once('error', () => resolve(false))
    child.once('exit', (code) => resolve(code === 0))
  })
}

/**
 * Scenario 11: docx to PDF conversions per second of the LibreOffice pool (long-lived
 * offices driven over UNO) against a cold `soffice --convert-to` per document, both with
 * 2 office processes at once, on the same generated 40-paragraph document.
 */
export const conversion: Scenario = {
  id: 11,
  title: 'Document conversion: LibreOffice pool against a cold soffice per document',
  async run(ctx: ScenarioContext, record: Recorder) {
    if (!(await hasSoffice())) {
      if (process.env.CI === 'true') throw new Error('soffice is not installed (.ci/run installs LibreOffice)')
      throw new SkipScenario('soffice is not installed')
    }
    const dir = await ctx.workDir('conversion')
    const count = ctx.options.quick ? 4 : 12
    const docx = docxWithText(
      Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1} of the benchmark document, with a few words in it.`),
    )
    const input = join(dir, 'bench.docx')
    await writeFile(input, docx)
    const profiles = Array.from({ length: WORKERS }, (_, lane) => join(dir, `cold-profile-${lane}`))
    // Each cold lane's profile is made before timing (a first start also writes the profile).
    await Promise.all(profiles.map((profile, lane) => coldConversion(dir, profile, input, -1 - lane)))
    const cold = await rate(count, (n, lane) => coldConversion(dir, profiles[lane] ?? '', input, n))
    const coldPdf = await readFile(join(dir, 'cold-0', 'bench.pdf'))

    const pool = await openLibreOfficeConverter({
      workers: WORKERS,
      timeoutMs: 120_000,
      queueSize: count,
      maxOutputBytes: 100 * 1024 * 1024,
      tempRoot: dir,
    })
    let pdfStart = ''
    try {
      const once = async () => {
        const result = await pool.convert({
          source: { kind: 'stream', stream: Readable.from([docx]), extension: 'docx' },
          target: 'pdf',
        })
        const chunks: Buffer[] = []
        for await (const chunk of result.stream()) chunks.push(Buffer.from(chunk))
        pdfStart = Buffer.concat(chunks).subarray(0, 5).toString('latin1')
      }
      // The offices start on the first conversions, as they do in a running Folio.
      await Promise.all([once(), once()])
      const pooled = await rate(count, () => once())
      record.figure(
        ratioFigure({
          metric: `docx to PDF conversions/s, ${WORKERS} office processes (${count} documents)`,
          value: pooled,
          baseline: cold,
          baselineName: `cold soffice --convert-to per document, ${WORKERS} at once`,
          unit: 'conv/s',
          target: { min: 3 },
        }),
      )
    } finally {
      await pool.close()
    }
    await throughFolio(ctx, record, docx)
    record.note(CONVERSION_NOTE)
    record.check(
      'both ways produce a PDF',
      pdfStart === '%PDF-' && coldPdf.subarray(0, 5).toString('latin1') === '%PDF-',
      `pool: ${JSON.stringify(pdfStart)}, cold: ${JSON.stringify(coldPdf.subarray(0, 5).toString('latin1'))}`,
    )
  },
}

/** Resident memory of the office processes (soffice.bin) under a process, summed. */
async function officeRss(): Promise<number> {
  let total = 0
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (!cmdline.split('\0')[0]?.endsWith('soffice.bin') || !cmdline.includes('folio-convert-')) continue
    try {
      total += readMemory(Number(entry)).rss
    } catch {
      // ended meanwhile
    }
  }
  return total
}

async function uploadDocx(folio: FolioProcess, token: string, title: string, bytes: Buffer): Promise<string> {
  const reply = await send(
    `${folio.url}/api/2.0/files/@my/upload?title=${encodeURIComponent(title)}`,
    'POST',
    { authorization: token, 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) },
    [bytes],
  )
  if (reply.status !== 201) throw new Error(`upload of ${title} answered ${reply.status} ${reply.text}`)
  return pickString(reply.json, 'response', 'id')
}

/**
 * Through a running Folio (1 office process): Folio's own resident memory while it converts
 * documents for the first time (the offices' reported apart), then a kept PDF rendition's
 * download latency against a plain download of a file of the same size.
 */
async function throughFolio(ctx: ScenarioContext, record: Recorder, docx: Buffer): Promise<void> {
  const dataDir = await ctx.workDir('conversion-folio')
  const folio = await startFolioProcess({
    dataDir,
    env: { FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' },
    label: 'Folio (converter)',
  })
  try {
    const token = await folio.signIn()
    const auth = { authorization: token }
    const idle = folio.memory().rss
    const peak = sampleRss(folio.pid)
    let officePeak = 0
    const firsts = ctx.options.quick ? 2 : 6
    const ids: string[] = []
    let firstSha = ''
    for (let i = 0; i < firsts; i++) {
      const id = await uploadDocx(folio, token, `report-${i}.docx`, docx)
      ids.push(id)
      const converted = await downloadHash(`${folio.url}/api/2.0/files/file/${id}/download?outputtype=.pdf`, auth)
      officePeak = Math.max(officePeak, await officeRss())
      if (converted.status !== 200) throw new Error(`download as PDF answered ${converted.status}`)
      if (i === 0) firstSha = converted.sha256
    }
    const folioPeak = peak.stop()
    record.figure(
      limitFigure({
        metric: `Folio's own peak RSS while converting ${firsts} documents (the office's ${(officePeak / MiB).toFixed(0)} MiB apart; idle ${(idle / MiB).toFixed(0)} MiB)`,
        value: folioPeak / MiB,
        unit: 'MiB',
        max: 110,
      }),
    )

    const first = ids[0] ?? ''
    const pdfUrl = `${folio.url}/api/2.0/files/file/${first}/download?outputtype=.pdf`
    const pdf = await downloadHash(pdfUrl, auth)
    const plain = await uploadFile(folio, token, 'plain.bin', pdf.bytes)
    const plainUrl = `${folio.url}/api/2.0/files/file/${plain.id}/download`
    const rounds = ctx.options.quick ? 30 : 200
    const pdfMs: number[] = []
    const plainMs: number[] = []
    for (let i = 0; i < rounds; i++) {
      for (const [url, times] of [
        [pdfUrl, pdfMs],
        [plainUrl, plainMs],
      ] as const) {
        const started = performance.now()
        const reply = await downloadHash(url, auth)
        times.push(performance.now() - started)
        if (reply.status !== 200 || reply.bytes !== pdf.bytes)
          throw new Error(`download answered ${reply.status}, ${reply.bytes} bytes`)
      }
    }
    record.figure(
      ratioFigure({
        metric: `kept PDF rendition download latency, median of ${rounds} (${pdf.bytes} bytes)`,
        value: median(pdfMs),
        baseline: median(plainMs),
        baselineName: 'plain download of a file of the same size',
        unit: 'ms',
        target: { max: 2 },
      }),
    )
    record.check(
      'a kept rendition answers the same PDF as its first conversion',
      pdf.status === 200 && pdf.sha256 === firstSha,
      `status ${pdf.status}, ${pdf.bytes} bytes, SHA-256 ${pdf.sha256.slice(0, 16)}… (first ${firstSha.slice(0, 16)}…)`,
    )
  } finally {
    await folio.stop()
  }
}
