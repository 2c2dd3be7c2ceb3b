import { startBaseline } from '../baselines/launch.js'
import { bodySha256 } from '../body.js'
import { uploadFile, wopiAccess } from '../folio-api.js'
import { startFolioProcess } from '../folio-process.js'
import { downloadHash, jsonCall, pick } from '../http.js'
import { describeLoad, type LoadStep } from '../load.js'
import type { Recorder } from '../results.js'
import type { Scenario, ScenarioContext } from '../scenario.js'
import { compareAtEachCount, CPU_RATIO_TARGET, recordComparison } from '../server-comparison.js'
import { createFolder, createSharee, moveFiles, shareFolder } from '../sharing-setup.js'

const SMALL_FILE = 16 * 1024

/** Scenario 2: CheckFileInfo and GetFile of a small file, against a bare node:http server. */
export const wopiRead: Scenario = {
  id: 2,
  title: 'WOPI CheckFileInfo and GetFile of a small file',
  async run(ctx: ScenarioContext, record: Recorder) {
    const { options } = ctx
    const folio = await startFolioProcess({
      dataDir: await ctx.workDir('wopi-read'),
      cpuProfDir: options.cpuProfDir,
    })
    const bare = await startBaseline('bare-server')
    try {
      const token = await folio.signIn()
      const { id } = await uploadFile(folio, token, 'small.docx', SMALL_FILE)
      const access = await wopiAccess(folio, token, id)

      const info = await jsonCall(folio.url, 'GET', access.filePath)
      record.check(
        'CheckFileInfo answers 200 with the stored Size',
        info.status === 200 && pick(info.json, 'Size') === SMALL_FILE,
        `status ${info.status}, Size ${String(pick(info.json, 'Size'))}`,
      )
      const content = await downloadHash(folio.url + access.contentsPath)
      record.check(
        'GetFile returns the uploaded bytes (SHA-256)',
        content.status === 200 && content.sha256 === bodySha256(SMALL_FILE),
        `status ${content.status}, ${content.bytes} bytes`,
      )

      const operations = [
        { name: 'CheckFileInfo', path: access.filePath, bytes: Buffer.byteLength(info.text) },
        { name: 'GetFile (16 KiB)', path: access.contentsPath, bytes: SMALL_FILE },
      ]
      for (const operation of operations) {
        // The bare server answers the same path with a body of the same length.
        const bareStep: LoadStep = { method: 'GET', path: `${operation.path}&bytes=${operation.bytes}` }
        const comparisons = await compareAtEachCount(ctx, operation.name, {
          bare: { server: { url: bare.url, pids: [bare.pid] }, sequences: () => [[bareStep]] },
          folio: {
            server: { url: folio.url, pids: [folio.pid] },
            sequences: () => [[{ method: 'GET', path: operation.path }]],
          },
        })
        for (const { connections, loads } of comparisons) {
          record.check(
            `every ${operation.name} of the load runs at ${connections} connections answered 200`,
            loads.folio.failedStatus === 0 && loads.folio.socketErrors === 0 && loads.folio.completed > 0,
            describeLoad(loads.folio),
          )
        }
        recordComparison(record, {
          name: operation.name,
          comparisons,
          folio: 'folio',
          baseline: 'bare',
          baselineName: 'bare node:http',
          cpuTarget: CPU_RATIO_TARGET,
        })
      }
      await measureSharedAccess(ctx, record, folio, token, id)
    } finally {
      await bare.stop()
      await folio.stop()
    }
  },
}

/**
 * The access check's cost on CheckFileInfo: the same file, moved into a folder two levels
 * under the owner's root and shared (ReadWrite) through the upper folder, opened by the
 * person it is shared with, against the owner opening it. Both runs in turn, same load.
 */
async function measureSharedAccess(
  ctx: ScenarioContext,
  record: Recorder,
  folio: Awaited<ReturnType<typeof startFolioProcess>>,
  ownerToken: string,
  fileId: string,
) {
  const sharee = await createSharee(folio, ownerToken)
  const team = await createFolder(folio, ownerToken, '@my', 'Team')
  const inner = await createFolder(folio, ownerToken, team, 'Drafts')
  await moveFiles(folio, ownerToken, [fileId], inner)
  await shareFolder(folio, ownerToken, team, sharee.id, 1)
  const owner = await wopiAccess(folio, ownerToken, fileId)
  const shared = await wopiAccess(folio, sharee.token, fileId)
  const info = await jsonCall(folio.url, 'GET', shared.filePath)
  record.check(
    "the sharee's CheckFileInfo answers 200 with their own UserId and UserCanWrite",
    info.status === 200 && pick(info.json, 'UserId') === sharee.id && pick(info.json, 'UserCanWrite') === true,
    `status ${info.status}, UserId ${String(pick(info.json, 'UserId'))}`,
  )
  // The same process serves both, in turns, so load from elsewhere falls on both alike.
  const asked = (path: string) => ({
    server: { url: folio.url, pids: [folio.pid] },
    sequences: () => [[{ method: 'GET', path }]],
  })
  const comparisons = await compareAtEachCount(ctx, 'CheckFileInfo, owner and sharee', {
    owner: asked(owner.filePath),
    sharee: asked(shared.filePath),
  })
  for (const { connections, loads } of comparisons) {
    record.check(
      `every CheckFileInfo of the sharee's load runs at ${connections} connections answered 200`,
      loads.sharee.failedStatus === 0 && loads.sharee.socketErrors === 0 && loads.sharee.completed > 0,
      describeLoad(loads.sharee),
    )
  }
  recordComparison(record, {
    name: 'CheckFileInfo of a file shared two folders up',
    comparisons,
    folio: 'sharee',
    folioName: 'the sharee',
    baseline: 'owner',
    baselineName: 'the owner, same file',
    cpuTarget: { min: 0.8 },
  })
}
