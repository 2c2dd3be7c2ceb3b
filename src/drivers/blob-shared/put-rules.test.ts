import assert from 'node:assert/strict'
import { PassThrough, Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { test } from 'node:test'

import { DomainError } from '../../core/errors.js'
import { watchBodyFailure } from './put-rules.js'

function openSource(): Readable {
  const source = new Readable({ read() {} })
  source.push(Buffer.alloc(1024))
  return source
}

test('a body that breaks off first is the body failing', async () => {
  const source = openSource()
  const middle = new PassThrough()
  const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() })
  const watch = watchBodyFailure(source, [middle, sink])
  setImmediate(() => source.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })))
  await assert.rejects(pipeline(source, middle, sink), /aborted/)
  assert.equal(watch.bodyFailed(), true)
  watch.stop()
})

test('a store failure that the pipeline passes on to the body is not the body failing', async () => {
  const source = openSource()
  const middle = new PassThrough()
  // A disk that is full: the pipeline then destroys the source with this same error.
  const sink = new Writable({
    write: (_chunk, _encoding, callback) => callback(new Error('ENOSPC: no space left on device')),
  })
  const watch = watchBodyFailure(source, [middle])
  watch.add(sink)
  await assert.rejects(pipeline(source, middle, sink), /ENOSPC/)
  assert.equal(watch.bodyFailed(), false)
  watch.stop()
})

test('a body error that already is a client error keeps its own answer', async () => {
  const source = openSource()
  const watch = watchBodyFailure(source, [])
  source.destroy(new DomainError('PAYLOAD_TOO_LARGE', 'too big'))
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(watch.bodyFailed(), false)
  watch.stop()
})
