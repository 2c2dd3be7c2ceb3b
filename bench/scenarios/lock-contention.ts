import { Agent, request } from 'node:http'
import { performance } from 'node:perf_hooks'
import { startBaseline } from '../baselines/launch.js'
import { uploadFile, wopiAccess, wopiPost } from '../folio-api.js'
import { startFolioProcess } from '../folio-process.js'
import { ratioFigure, type Recorder } from '../results.js'
import { median, type Scenario, type ScenarioContext } from '../scenario.js'

const ROUNDS = 3

/** One reply of a contender. */
interface Answer {
  lockId: string
  status: number
  /** X-WOPI-Lock of the reply ('' when absent). */
  currentLock: string
}

/**
 * Scenario 6: 1,000 concurrent Lock requests with distinct IDs on one file.
 * Exactly one must win and every loser must get 409 naming the winner; the
 * time to settle is compared with the bare server answering the same burst.
 */
export const lockContention: Scenario = {
  id: 6,
  title: 'Lock contention (1,000 concurrent Locks with distinct IDs on one file)',
  async run(ctx: ScenarioContext, record: Recorder) {
    const contenders = ctx.options.contenders
    const folio = await startFolioProcess({
      dataDir: await ctx.workDir('contention'),
      cpuProfDir: ctx.options.cpuProfDir,
    })
    const bare = await startBaseline('bare-server')
    // One connection per contender, opened before the burst, so the burst measures the
    // lock decisions and not 1,000 TCP handshakes.
    const agent = new Agent({ keepAlive: true, maxSockets: contenders, maxFreeSockets: contenders })
    try {
      const token = await folio.signIn()
      const { id } = await uploadFile(folio, token, 'contended.docx', 1024)
      const access = await wopiAccess(folio, token, id)

      const folioTimes: number[] = []
      const bareTimes: number[] = []
      for (let round = 0; round < ROUNDS; round++) {
        const ids = Array.from({ length: contenders }, (_, i) => `contender-${round}-${i}`)
        await warm(agent, bare.url, contenders)
        bareTimes.push((await burst(agent, bare.url + access.filePath, ids)).ms)
        await warm(agent, folio.url, contenders)
        const { ms, answers } = await burst(agent, folio.url + access.filePath, ids)
        folioTimes.push(ms)
        const winner = checkOneWinner(record, round, contenders, answers)
        if (winner) {
          const unlocked = await wopiPost(folio, access, 'UNLOCK', winner)
          if (unlocked.status !== 200) throw new Error(`Unlock by the winner answered ${unlocked.status}`)
        }
      }
      ctx.log(`settled in ${folioTimes.map((t) => t.toFixed(0)).join(', ')} ms`)
      record.figure(
        ratioFigure({
          metric: `time to settle ${contenders.toLocaleString('en')} concurrent Locks (median of ${ROUNDS})`,
          value: median(folioTimes),
          baseline: median(bareTimes),
          baselineName: 'bare node:http, same burst',
          unit: 'ms',
        }),
      )
    } finally {
      agent.destroy()
      await bare.stop()
      await folio.stop()
    }
  },
}

/** Records the exactly-one-winner check of a round; returns the winner's lock ID. */
function checkOneWinner(record: Recorder, round: number, contenders: number, answers: Answer[]): string | undefined {
  const winners = answers.filter((a) => a.status === 200)
  const winner = winners.length === 1 ? winners[0]?.lockId : undefined
  const losers = answers.filter((a) => a.status === 409)
  const namingWinner = losers.filter((a) => winner !== undefined && a.currentLock === winner)
  const other = answers.filter((a) => a.status !== 200 && a.status !== 409)
  record.check(
    `round ${round + 1}: exactly one of ${contenders} Locks wins and every other gets 409 naming it`,
    winners.length === 1 && losers.length === contenders - 1 && namingWinner.length === contenders - 1,
    `${winners.length} × 200, ${losers.length} × 409 (${namingWinner.length} naming the winner)` +
      (other.length > 0 ? `, ${other.length} other: ${statusList(other)}` : ''),
  )
  return winner
}

/** The distinct statuses of some answers, for a message. */
function statusList(answers: Answer[]): string {
  return [...new Set(answers.map((a) => a.status))].join(', ')
}

/** Opens `count` keep-alive connections to the server (concurrent GET /healthz). */
async function warm(agent: Agent, baseUrl: string, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => exchange(agent, `${baseUrl}/healthz`, 'GET', {})))
}

/** Sends one Lock per ID at once; resolves when the last reply is in. */
async function burst(agent: Agent, url: string, ids: string[]): Promise<{ ms: number; answers: Answer[] }> {
  const started = performance.now()
  const answers = await Promise.all(
    ids.map(async (lockId) => {
      const reply = await exchange(agent, url, 'POST', {
        'X-WOPI-Override': 'LOCK',
        'X-WOPI-Lock': lockId,
      })
      return { lockId, status: reply.status, currentLock: reply.lock }
    }),
  )
  return { ms: performance.now() - started, answers }
}

function exchange(
  agent: Agent,
  url: string,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; lock: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (response) => {
      response.resume()
      response.on('end', () => {
        const lock = response.headers['x-wopi-lock']
        resolve({ status: response.statusCode ?? 0, lock: typeof lock === 'string' ? lock : '' })
      })
      response.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}
