import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { openLibreOfficeConverter } from '../../src/drivers/converter-libreoffice/index.js'
import { docxWithText } from '../../test/support/office-documents.js'
import { ratioFigure, type Recorder } from '../results.js'
import { SkipScenario, type Scenario, type ScenarioContext } from '../scenario.js'

const CONVERSION_NOTE = [
  'Each pool worker is a headless soffice.bin started once, with its own profile folder, and a',
  'small Python bridge (Debian\'s python3-uno) that loads and stores documents over UNO on a',
  'private pipe, answering Node in JSON lines (src/drivers/converter-libreoffice/). A cold',
  'soffice --convert-to starts the whole office for every document (about 2-5 s on this',
  'machine), which the pool pays once per worker; a pooled conversion of this document costs',
  'the load, the layout and the PDF export alone. Both sides keep 2 office processes busy.',
].join(' ')

/** Office processes on each side: the pool's workers, and cold processes run at once. */
const WORKERS = 2

/** A cold `soffice --headless --convert-to pdf`, on a profile folder made before timing. */
function coldConversion(dir: string, profile: string, input: string, n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'soffice',
      ['--headless', `-env:UserInstallation=file://${profile}`, '--convert-to', 'pdf', '--outdir', join(dir, `cold-${n}`), input],
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
 * Scenario 10: docx to PDF conversions per second of the LibreOffice pool (long-lived
 * offices driven over UNO) against a cold `soffice --convert-to` per document, both with
 * 2 office processes at once, on the same generated 40-paragraph document.
 */
export const conversion: Scenario = {
  id: 10,
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
    record.note(CONVERSION_NOTE)
    record.check(
      'both ways produce a PDF',
      pdfStart === '%PDF-' && coldPdf.subarray(0, 5).toString('latin1') === '%PDF-',
      `pool: ${JSON.stringify(pdfStart)}, cold: ${JSON.stringify(coldPdf.subarray(0, 5).toString('latin1'))}`,
    )
  },
}
