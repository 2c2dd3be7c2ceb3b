import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { describe, test } from 'node:test'
import type { AdapterContext } from '../../app/index.js'
import { contentReply, type Content } from './send-content.js'

/** An adapter context whose stored blob holds `stored`, handed over whole or only as a stream. */
function contextWith(stored: Buffer, whole: boolean): AdapterContext {
  const files = {
    readSmallBlob: () => Promise.resolve(whole ? stored : undefined),
    openBlob: () => Promise.resolve(Readable.from([stored])),
  }
  return { app: { files } } as unknown as AdapterContext
}

const content = (size: number): Content => ({
  blobKey: 'AAAAAAAAAAAAAAAAAAAAAAAA',
  size,
  sha256: 'ab'.repeat(32),
  fileName: 'a.docx',
  modifiedAt: 0,
})

describe('contentReply headers', () => {
  test('Content-Disposition and Last-Modified follow the file from call to call', async () => {
    const bytes = Buffer.from('x')
    const ctx = contextWith(bytes, true)
    const first = await contentReply(ctx, {}, { ...content(1), fileName: 'a.docx', modifiedAt: 0 })
    const second = await contentReply(ctx, {}, { ...content(1), fileName: 'b.docx', modifiedAt: 86_400_000 })
    const inline = await contentReply(ctx, {}, { ...content(1), fileName: 'b.docx' }, { disposition: 'inline' })
    assert.equal(first.headers['Content-Disposition'], 'attachment; filename=a.docx')
    assert.equal(second.headers['Content-Disposition'], 'attachment; filename=b.docx')
    assert.equal(inline.headers['Content-Disposition'], 'inline; filename=b.docx')
    assert.equal(first.headers['Last-Modified'], 'Thu, 01 Jan 1970 00:00:00 GMT')
    assert.equal(second.headers['Last-Modified'], 'Fri, 02 Jan 1970 00:00:00 GMT')
  })
})

describe('contentReply of small content', () => {
  for (const whole of [true, false]) {
    const path = whole ? 'handed over whole' : 'read from a stream'
    test(`sends the recorded bytes with their length (${path})`, async () => {
      const bytes = Buffer.from('twelve bytes')
      const answer = await contentReply(contextWith(bytes, whole), {}, content(bytes.length))
      assert.equal(answer.status, 200)
      assert.equal(answer.headers['Content-Length'], String(bytes.length))
      assert.ok(Buffer.isBuffer(answer.body) && answer.body.equals(bytes))
    })

    test(`a stored blob shorter or longer than recorded fails rather than send it (${path})`, async () => {
      const bytes = Buffer.from('twelve bytes')
      for (const recorded of [bytes.length - 1, bytes.length + 1]) {
        await assert.rejects(
          contentReply(contextWith(bytes, whole), {}, content(recorded)),
          /stored content is 12 bytes/,
        )
      }
    })
  }
})
