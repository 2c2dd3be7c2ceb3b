import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'

import { bytesOf, libreOfficeMissing, runConverterContract, textOf } from '../../../test/contract/converter.contract.js'
import { docxLinkingImage, docxWithText } from '../../../test/support/office-documents.js'
import { isDomainError } from '../../core/errors.js'
import { openFsBlobStore } from '../blob-fs/index.js'
import { openLibreOfficeConverter, type LibreOfficeConverter, type LibreOfficeConverterOptions } from './index.js'

const BASE: LibreOfficeConverterOptions = {
  workers: 2,
  timeoutMs: 30_000,
  queueSize: 20,
  maxOutputBytes: 50 * 1024 * 1024,
  memoryBytes: 1024 ** 3,
}

async function openPool(options: Partial<LibreOfficeConverterOptions> = {}) {
  const root = await mkdtemp(join(tmpdir(), 'folio-lo-test-'))
  const blobs = await openFsBlobStore({ root: join(root, 'store') })
  const converter = await openLibreOfficeConverter({ ...BASE, blobs, tempRoot: root, ...options })
  return {
    root,
    blobs,
    converter,
    cleanup: async () => {
      await converter.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}

runConverterContract('libreoffice', openPool)

// The same hostile link with the office's own settings alone (no network namespace):
// the settings must hold by themselves where the system allows no namespace.
runConverterContract('libreoffice, no network namespace', () => openPool({ isolateNetwork: 'off', workers: 1 }))

/**
 * Office processes whose profile lies under `root`, read from /proc: soffice.bin started by
 * a worker's bridge. The office forks short-lived helpers that show the same command line
 * until they exec; those have an office (or init, once orphaned) as parent, not a bridge.
 */
async function officeProcesses(root: string): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    const [program = ''] = cmdline.split('\0')
    if (!program.endsWith('soffice.bin') || !cmdline.includes(root)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    const [state = '', parent = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const parentCmdline = await readFile(`/proc/${parent}/cmdline`, 'utf8').catch(() => '')
    if (state !== 'Z' && parentCmdline.includes('uno-bridge.py')) pids.push(Number(entry))
  }
  return pids
}

const bigDocx = () =>
  docxWithText(Array.from({ length: 3000 }, (_, i) => `Paragraph ${i} of a long document to keep the office busy.`))

describe('LibreOffice pool', { skip: libreOfficeMissing() }, () => {
  let pool: Awaited<ReturnType<typeof openPool>>
  const converter = (): LibreOfficeConverter => pool.converter
  const convert = (bytes: Buffer, extension = 'docx') =>
    converter().convert({ source: { kind: 'stream', stream: Readable.from([bytes]), extension }, target: 'pdf' })

  before(async () => {
    pool = await openPool()
  })
  after(async () => {
    await pool.cleanup()
  })

  test('12 concurrent conversions on 2 workers run at most 2 office processes, and all succeed', async () => {
    let most = 0
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, (await officeProcesses(pool.root)).length)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    })()
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => convert(docxWithText([`Concurrent document ${i}`])).then(bytesOf)),
    )
    sampling = false
    await sampler
    assert.ok(most >= 1 && most <= 2, `${most} office processes at once`)
    for (const [i, pdf] of results.entries()) {
      assert.match(await textOf('pdf', pdf), new RegExp(`Concurrent document ${i}\\b`))
    }
  })

  test('kill -9 of the office mid-conversion: that request is retried or fails cleanly, the next succeeds', async () => {
    await bytesOf(await convert(docxWithText(['warm up'])))
    const running = convert(bigDocx())
    // Wait until a conversion is under way on an office, then kill that office.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const before = converter().officePids()
    assert.ok(before.length > 0)
    for (const pid of before) process.kill(pid, 'SIGKILL')
    const outcome = await running.then(
      async (result) => ({ ok: true, text: await textOf('pdf', await bytesOf(result)) }),
      (error: unknown) => ({ ok: false, error }),
    )
    if (outcome.ok) {
      assert.match(String('text' in outcome ? outcome.text : ''), /Paragraph 2999 /)
    } else {
      const error = 'error' in outcome ? outcome.error : undefined
      assert.ok(isDomainError(error) && error.code === 'CONVERSION_FAILED', String(error))
    }
    const next = await textOf('pdf', await bytesOf(await convert(docxWithText(['after the kill']))))
    assert.match(next, /after the kill/)
    for (const pid of before) assert.ok(!converter().officePids().includes(pid), `office ${pid} still counted`)
  })

  test('a blob source converts from the blob store', async () => {
    const stored = await pool.blobs.put(Readable.from([docxWithText(['From the blob store'])]), { maxBytes: 1e7 })
    const result = await converter().convert({
      source: { kind: 'blob', blobKey: stored.key, extension: 'docx' },
      target: 'txt',
    })
    assert.match((await bytesOf(result)).toString('utf8'), /From the blob store/)
  })

  test('a result read or discarded leaves no temporary file behind', async () => {
    const read = await convert(docxWithText(['read me']))
    await bytesOf(read)
    const discarded = await convert(docxWithText(['discard me']))
    await discarded.discard()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const jobs = await readdir(join(pool.root), { recursive: true })
    assert.deepEqual(
      jobs.filter((path) => path.includes('job-')),
      [],
    )
  })
})

describe('the linked-image recorder can see a fetch', { skip: libreOfficeMissing() }, () => {
  test('control: a cold soffice --convert-to with its default settings fetches the linked image', async () => {
    const hits: string[] = []
    const server = createServer((request, response) => {
      hits.push(request.url ?? '')
      response.end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    const dir = await mkdtemp(join(tmpdir(), 'folio-lo-control-'))
    try {
      await writeFile(join(dir, 'linking.docx'), docxLinkingImage('control', `http://127.0.0.1:${port}/x.png`))
      const child = spawn(
        'soffice',
        [
          '--headless',
          `-env:UserInstallation=file://${dir}/profile`,
          '--convert-to',
          'pdf',
          '--outdir',
          dir,
          join(dir, 'linking.docx'),
        ],
        { stdio: 'ignore' },
      )
      await new Promise((resolve) => child.once('exit', resolve))
      assert.ok(hits.includes('/x.png'), `the recorder saw ${JSON.stringify(hits)}`)
    } finally {
      await new Promise((resolve) => server.close(resolve))
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('LibreOffice pool limits', { skip: libreOfficeMissing() }, () => {
  test('a conversion over the timeout fails with CONVERSION_FAILED, the office is replaced, the next succeeds', async () => {
    const pool = await openPool({ workers: 1, timeoutMs: 1_500 })
    try {
      // Started before the timer matters: the first conversion also starts the office.
      await bytesOf(
        await pool.converter.convert({
          source: { kind: 'stream', stream: Readable.from([docxWithText(['warm'])]), extension: 'docx' },
          target: 'pdf',
        }),
      )
      const first = pool.converter.officePids()
      const slow = docxWithText(
        Array.from({ length: 40_000 }, (_, i) => `Line ${i} of a document too long for the time allowed.`),
      )
      await assert.rejects(
        pool.converter.convert({
          source: { kind: 'stream', stream: Readable.from([slow]), extension: 'docx' },
          target: 'pdf',
        }),
        (error: unknown) =>
          isDomainError(error) && error.code === 'CONVERSION_FAILED' && /longer than/.test(error.message),
      )
      assert.ok(first.every((pid) => !pool.converter.officePids().includes(pid)))
      const ok = await pool.converter.convert({
        source: { kind: 'stream', stream: Readable.from([Buffer.from('after the timeout')]), extension: 'txt' },
        target: 'pdf',
      })
      assert.match(await textOf('pdf', await bytesOf(ok)), /after the timeout/)
    } finally {
      await pool.cleanup()
    }
  })

  test('beyond the queue a conversion is CONVERTER_BUSY with a retry time', async () => {
    const pool = await openPool({ workers: 1, queueSize: 1 })
    try {
      const doc = () => ({
        source: { kind: 'stream' as const, stream: Readable.from([bigDocx()]), extension: 'docx' },
        target: 'pdf' as const,
      })
      const first = pool.converter.convert(doc())
      const second = pool.converter.convert(doc())
      await assert.rejects(
        pool.converter.convert(doc()),
        (error: unknown) =>
          isDomainError(error) && error.code === 'CONVERTER_BUSY' && (error.details.retryAfterSeconds ?? 0) > 0,
      )
      await Promise.all([first, second].map(async (p) => (await p).discard()))
    } finally {
      await pool.cleanup()
    }
  })
})
