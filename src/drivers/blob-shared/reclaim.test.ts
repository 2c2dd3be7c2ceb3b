import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { test } from 'node:test'

import { blobMeter } from './put-rules.js'
import { RECLAIM_EVERY_BYTES, reclaimBodyBuffers } from './reclaim.js'

test('collecting mid-body leaves no global gc behind for the rest of the process', () => {
  reclaimBodyBuffers()
  reclaimBodyBuffers()
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined')
})

test('a body spanning several collections is counted and hashed byte for byte', async () => {
  // Odd-sized chunks, so the 16 MiB boundaries fall inside chunks.
  const chunk = Buffer.alloc(1_000_003)
  const count = Math.ceil((2.5 * RECLAIM_EVERY_BYTES) / chunk.length)
  const expected = createHash('sha256')
  const chunks: Buffer[] = []
  for (let i = 0; i < count; i++) {
    const bytes = Buffer.from(chunk.fill(i % 251))
    expected.update(bytes)
    chunks.push(bytes)
  }
  const meter = blobMeter({ maxBytes: count * chunk.length })
  let seen = 0
  const sink = new Writable({
    write(bytes: Buffer, _encoding, callback) {
      seen += bytes.length
      callback()
    },
  })
  await pipeline(Readable.from(chunks), meter.stream, sink)
  assert.equal(meter.size(), count * chunk.length)
  assert.equal(seen, count * chunk.length)
  assert.equal(meter.sha256(), expected.digest('hex'))
})
