import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { FOLIO_BIN, runFolio } from '../support/folio-command.js'
import { startTestServer } from '../support/folio-server.js'
import { signIn } from '../support/portal-client.js'

/**
 * `folio user passwd NAME` on a terminal: run under `script`, which gives the command a
 * pseudo-terminal, and answered only once each prompt is shown (as a person would type).
 */
function passwdOnTerminal(
  name: string,
  env: Record<string, string>,
  answers: string[],
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const command = `${process.execPath} ${FOLIO_BIN} user passwd ${name}`
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', FOLIO_LOG_LEVEL: 'warn', TERM: 'dumb', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let output = ''
    let asked = 0
    const prompts = [/New password: $/, /Repeat it: $/]
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const prompt = prompts[asked]
      const answer = answers[asked]
      if (prompt && answer !== undefined && prompt.test(output)) {
        asked++
        child.stdin.write(`${answer}\r`)
      }
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

describe('folio user passwd asks on a terminal, echo off', () => {
  let dataDir: string
  let env: Record<string, string>

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'folio-passwd-'))
    env = { FOLIO_DATA_DIR: dataDir }
    const made = await startTestServer({}, { dataDir, metadata: { settings: {}, dispose: async () => undefined } })
    await made.stop()
    const added = await runFolio(['user', 'add', 'carol', '--password-stdin'], env, { stdin: 'carol-first-pass\n' })
    assert.equal(added.code, 0, added.stderr)
  })
  after(() => rm(dataDir, { recursive: true, force: true }))

  test('the typed password is not shown, and it is the new password', async () => {
    const run = await passwdOnTerminal('carol', env, ['typed-on-a-tty-1', 'typed-on-a-tty-1'])
    assert.equal(run.code, 0, run.output)
    assert.match(run.output, /password changed for carol/)
    assert.doesNotMatch(run.output, /typed-on-a-tty/)
    const server = await startTestServer({}, { dataDir, metadata: { settings: {}, dispose: async () => undefined } })
    try {
      assert.ok(await signIn(server.url, 'carol', 'typed-on-a-tty-1'))
    } finally {
      await server.stop()
    }
  })

  test('two different answers change nothing', async () => {
    const run = await passwdOnTerminal('carol', env, ['typed-on-a-tty-2', 'typed-on-a-tty-3'])
    assert.notEqual(run.code, 0)
    assert.match(run.output, /the two passwords differ; nothing was changed/)
    assert.doesNotMatch(run.output, /typed-on-a-tty/)
  })

  test('without a terminal or --password-stdin it says how to give the password', async () => {
    const run = await runFolio(['user', 'passwd', 'carol'], env)
    assert.equal(run.code, 1)
    assert.match(run.stderr, /pipe it in with --password-stdin/)
  })
})
