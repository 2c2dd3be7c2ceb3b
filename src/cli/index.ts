import { Command, CommanderError } from 'commander'
import { ConfigError, loadConfig, type Config } from '../config/load.js'
import { changePassword, createUser, removeUser, setAdmin } from '../app/accounts/accounts.js'
import { createApp, type App } from '../app/create-app.js'
import type { LockInfo } from '../app/wopi/locks.js'
import { CONSOLE_ACTOR } from '../app/audit.js'
import { addAuditCommand } from './audit-command.js'
import { promptNewPassword } from './password-prompt.js'
import { addBackupCommands } from './backup-commands.js'
import { addMigrateCommand } from './migrate-command.js'
import { addSearchCommand } from './search-command.js'
import { serveWithWorkers } from './workers.js'
import { collectStartUpGarbage } from '../process/collector.js'
import { generatePassword } from '../core/accounts/passwords.js'
import { formatBytes, parseByteSize } from '../core/accounts/quota.js'
import { DomainError } from '../core/errors.js'
import { errorMessage } from '../core/ids.js'
import { assertInstallExists, createContext, createLogger, openStorage, startFolio } from '../main.js'

/** Reads all of standard input (a password piped in), without the trailing newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

/** 'held by <user id> since <time>' for a lock, as far as it was recorded. */
function describeHolder(info: LockInfo): string {
  const by = info.holderId === undefined ? 'by an unrecorded user' : `by user ${info.holderId}`
  const since = info.lockedAt === undefined ? '' : ` since ${new Date(info.lockedAt).toISOString()}`
  return `held ${by}${since}`
}

/** Runs an admin task against the store without starting the server. */
async function withApp<T>(task: (app: App) => Promise<T>): Promise<T> {
  const config = loadConfig()
  await assertInstallExists(config)
  const storage = await openStorage(config)
  const logger = createLogger({ ...config, logLevel: 'warn' })
  try {
    return await task(createApp(await createContext(config, storage, { logger })))
  } finally {
    await storage.store.close()
    await storage.blobs.close?.()
  }
}

async function serve(): Promise<void> {
  let config: Config
  config = loadConfig()
  if (config.workers > 1) {
    await serveWithWorkers(config)
    return
  }
  const folio = await startFolio(config)
  collectStartUpGarbage()
  const stop = async (signal: string) => {
    folio.ctx.logger.info({ signal }, 'shutting down')
    await folio.close()
    process.exit(0)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
}

/** The `folio` command line: serve, and user administration. */
export function buildCli(): Command {
  const program = new Command('folio')
    .description('Folio: a self-hosted document host for online editors')
    .showHelpAfterError()
    .exitOverride()

  program
    .command('serve')
    .description('start the server (settings from FOLIO_* environment variables or FOLIO_CONFIG)')
    .action(serve)

  program
    .command('gc')
    .description(
      'remove temporary files and unreferenced blobs older than an hour, and expired sessions; safe while a server runs',
    )
    .option('--json', 'print the report as JSON', false)
    .action(async (options: { json: boolean }) => {
      const report = await withApp((app) => app.maintenance.runHousekeeping())
      if (options.json) {
        console.log(JSON.stringify(report, null, 2))
        return
      }
      console.log(
        `removed ${report.blobsRemoved} unreferenced blobs (${report.blobBytesFreed} bytes) of ` +
          `${report.blobsScanned}, ${report.tempFilesRemoved} temporary files ` +
          `(${report.tempBytesFreed} bytes), ${report.sessionsPurged} expired sessions, ` +
          `${report.throttleKeysPurged} old sign-in throttle entries`,
      )
    })

  const user = program.command('user').description('manage user accounts')

  user
    .command('add <name>')
    .description('create a user; prints a generated password unless --password-stdin is given')
    .option('--admin', 'give the user admin rights', false)
    .option('--password-stdin', 'read the password from standard input', false)
    .action(async (name: string, options: { admin: boolean; passwordStdin: boolean }) => {
      const password = options.passwordStdin ? await readStdin() : generatePassword()
      await withApp((app) =>
        app.accounts.createUser({ userName: name, password, isAdmin: options.admin }, CONSOLE_ACTOR),
      )
      console.log(`created user ${name}${options.admin ? ' (admin)' : ''}`)
      if (!options.passwordStdin) console.log(`password: ${password}`)
    })

  user
    .command('list')
    .description('list users with the space their files use (and their quota)')
    .option('--json', 'print JSON', false)
    .action(async (options: { json: boolean }) => {
      const { users, usage } = await withApp(async (app) => ({
        users: await app.accounts.listUsers(),
        usage: await app.accounts.everyonesUsage(),
      }))
      const storageOf = (id: string) => usage.get(id) ?? { usedSpace: 0, quotaLimit: undefined }
      if (options.json) {
        const rows = users.map((u) => ({
          id: u.id,
          userName: u.userName,
          isAdmin: u.isAdmin,
          disabled: u.disabled,
          usedSpace: storageOf(u.id).usedSpace,
          quotaLimit: storageOf(u.id).quotaLimit ?? -1,
        }))
        console.log(JSON.stringify(rows, null, 2))
        return
      }
      for (const u of users) {
        const role = `${u.isAdmin ? 'admin' : 'user'}${u.disabled ? ' (disabled)' : ''}`
        const { usedSpace, quotaLimit } = storageOf(u.id)
        const storage = `${formatBytes(usedSpace)}${quotaLimit === undefined ? '' : ` of ${formatBytes(quotaLimit)}`}`
        console.log(`${u.userName}\t${role}\t${storage}\t${u.id}`)
      }
    })

  user
    .command('passwd <name>')
    .description("set a new password (ends the user's sessions); asks for it on a terminal, echo off")
    .option('--password-stdin', 'read the password from standard input', false)
    .action(async (name: string, options: { passwordStdin: boolean }) => {
      const password = options.passwordStdin ? await readStdin() : await promptNewPassword()
      await withApp((app) => app.accounts.changePassword(name, password))
      console.log(`password changed for ${name}`)
    })

  user
    .command('admin <name>')
    .description('grant admin rights (or withdraw them with --revoke)')
    .option('--revoke', 'withdraw admin rights', false)
    .action(async (name: string, options: { revoke: boolean }) => {
      await withApp((app) => app.accounts.setAdmin(name, !options.revoke))
      console.log(`${name} is ${options.revoke ? 'no longer' : 'now'} an admin`)
    })

  user
    .command('unlock <name>')
    .description('lift the sign-in lock-out of a user (after too many failed attempts)')
    .action(async (name: string) => {
      await withApp((app) => app.accounts.unlockUser(name))
      console.log(`sign-in unlocked for ${name}`)
    })

  user
    .command('disable <name>')
    .description('disable a user without removing them: ends their sessions, tokens, links and editors')
    .action(async (name: string) => {
      await withApp((app) => app.accounts.setUserDisabled(name, true))
      console.log(`disabled user ${name}`)
    })

  user
    .command('enable <name>')
    .description('enable a disabled user again (their files and shares are as they were)')
    .action(async (name: string) => {
      await withApp((app) => app.accounts.setUserDisabled(name, false))
      console.log(`enabled user ${name}`)
    })

  user
    .command('quota <name> <size>')
    .description("set a user's storage quota: a size such as 500MiB or 2GB, or none to remove it")
    .action(async (name: string, size: string) => {
      const limit = parseByteSize(size)
      const { usage } = await withApp((app) => app.accounts.setUserQuota(name, limit))
      const used = `${formatBytes(usage.usedSpace)} used`
      console.log(
        limit === undefined
          ? `${name} has no storage quota (${used})`
          : `${name} may store ${formatBytes(limit)} (${used})`,
      )
    })

  user
    .command('remove <name>')
    .description('remove a user and end their sessions')
    .action(async (name: string) => {
      await withApp((app) => app.accounts.removeUser(name))
      console.log(`removed user ${name}`)
    })

  const lock = program
    .command('lock')
    .description("see and release files' WOPI locks")
    // Ids made before new ids stopped starting with '-' would otherwise read as an option.
    .addHelpText('after', "\nA file id that starts with '-' goes after --: folio lock show -- -abc123")

  lock
    .command('show <fileId>')
    .description('show who holds the WOPI lock of a file and since when')
    .action(async (fileId: string) => {
      const info = await withApp((app) => app.locks.info('operator', fileId))
      console.log(info.locked ? `locked ${describeHolder(info)}` : 'not locked')
    })

  lock
    .command('release <fileId>')
    .description('release the WOPI lock of a file (one left behind by a closed browser), whoever holds it')
    .action(async (fileId: string) => {
      const released = await withApp((app) => app.locks.release('operator', fileId))
      console.log(released.locked ? `released the lock ${describeHolder(released)}` : 'the file was not locked')
    })

  addAuditCommand(program, withApp)
  addBackupCommands(program)
  addMigrateCommand(program)
  addSearchCommand(program, withApp)

  return program
}

/** Entry point: exit code 0 on success, 1 on a failure with a one-line reason. */
export async function runCli(argv: string[]): Promise<void> {
  const program = buildCli()
  try {
    await program.parseAsync(argv)
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode
      return
    }
    if (error instanceof ConfigError || error instanceof DomainError) {
      console.error(`folio: ${error.message}`)
    } else {
      console.error(`folio: ${errorMessage(error)}`)
    }
    process.exitCode = 1
  }
}
