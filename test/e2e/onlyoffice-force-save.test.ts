import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { bytes, lastCallback, startHarness, waitFor, type Harness } from '../support/onlyoffice-harness.js'

// Force saves (status 6): a version each time, the key kept until the exit save.
describe('ONLYOFFICE force saves', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  test('the Save button stores a version (forcesavetype 1) and keeps the key', async () => {
    const file = await h.upload('Button.docx', 'b1')
    const config = await h.openConfig(file.id)
    const session = await h.sim.openEditor(config)
    session.edit(bytes('b2 saved by button'))
    const sent = await session.clickSave()
    assert.equal(sent?.status, 6)
    assert.equal(sent?.ok, true, sent?.reply)

    const record = await h.file(file.id)
    assert.equal(record.version, 2)
    assert.equal(await h.contents(file.id), 'b2 saved by button')
    const [latest] = await h.versions(file.id)
    assert.equal(latest?.source, 'force-save')
    assert.equal(latest?.meta.forcesavetype, 1)
    assert.equal(latest?.author.id, h.admin.id)
    // Still editing, same key for anyone joining now.
    assert.deepEqual(
      record.editing.map((e) => e.id),
      [h.admin.id],
    )
    assert.equal((await h.openConfig(file.id)).document?.key, config.document?.key)

    // The same status 6 again (a proxy repeat): no second version.
    const repeat = await h.sim.sendCallback(sent?.url ?? '', sent?.body ?? {})
    assert.equal(repeat.reply, '{"error":0}')
    assert.equal((await h.file(file.id)).version, 2)

    // A later force save of the same session is a new version, same key.
    session.edit(bytes('b3'))
    assert.equal((await session.clickSave())?.ok, true)
    assert.equal((await h.file(file.id)).version, 3)
    assert.equal((await h.openConfig(file.id)).document?.key, config.document?.key)

    // The exit save ends the session and rotates the key.
    session.edit(bytes('b4 final'))
    await session.disconnect()
    assert.equal(lastCallback(h.sim, 2).ok, true)
    const final = await h.file(file.id)
    assert.equal(final.version, 4)
    assert.deepEqual(final.editing, [])
    assert.equal(await h.contents(file.id), 'b4 final')
    assert.notEqual((await h.openConfig(file.id)).document?.key, config.document?.key)
    const sources = (await h.versions(file.id)).map((v) => v.source)
    assert.deepEqual(sources, ['exit-save', 'force-save', 'force-save', 'upload'])
  })

  test('POST .../forcesave asks the command service; status 6 (forcesavetype 0) follows', async () => {
    const file = await h.upload('Command.docx', 'c1')
    const config = await h.openConfig(file.id)
    const session = await h.sim.openEditor(config)
    session.edit(bytes('c2 by command'))

    const reply = await h.api('POST', `/files/file/${file.id}/forcesave`)
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.json.response, { key: config.document?.key, result: 'requested' })
    const command = h.sim.commands.at(-1)
    assert.equal(command?.c, 'forcesave')
    assert.equal(command?.error, 0)
    // JWT on: the command went as a signed {token} body.
    assert.deepEqual(Object.keys(command?.body ?? {}), ['token'])

    const sent = await h.sim.waitForCallback((c) => c.status === 6 && c.body.key === config.document?.key)
    assert.equal(sent.body.forcesavetype, 0)
    assert.equal(sent.ok, true)
    await waitFor(async () => ((await h.file(file.id)).version === 2 ? true : undefined))
    assert.equal(await h.contents(file.id), 'c2 by command')
    const [latest] = await h.versions(file.id)
    assert.equal(latest?.meta.forcesavetype, 0)
    assert.equal((await h.openConfig(file.id)).document?.key, config.document?.key)

    // Nothing changed since: Docs answers "not modified" and sends nothing.
    const again = await h.api('POST', `/files/file/${file.id}/forcesave`)
    assert.equal(again.json.response.result, 'not-modified')
    await session.disconnect()
  })

  test('force save of a file nobody has open is refused with 412', async () => {
    const file = await h.upload('Closed.docx', 'closed')
    const reply = await h.api('POST', `/files/file/${file.id}/forcesave`)
    assert.equal(reply.status, 412)
    assert.equal(reply.json.error.type, 'PRECONDITION_FAILED')
  })
})
