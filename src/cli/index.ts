import { Command, CommanderError } from 'commander'
import { ConfigError, loadConfig, type Config } from '../config/load.js'
import {
  changePassword,
  createUser,
  removeUser,
  setAdmin,
} from '../app/accounts.js'
import type { AppContext } from '../app/context.js'
import { generatePassword } from '../core/accounts/passwords.js'
import { DomainError } from '../core/errors.js'
import { errorMessage } from '../core/ids.js'
import { createContext, createLogger, openStorage, startFolio } from '../main.js'

/** Reads all of standard input (a password piped in), without the trailing newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

/** Runs an admin task against the store without starting the server. */
async function withContext<T>(task: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig()
  const storage = await openStorage(config)
  const logger = createLogger({ ...config, logLevel: 'warn' })
  try {
    return await task(await createContext(config, storage, { logger }))
  } finally {
    await storage.store.close()
  }
}

async function serve(): Promise<void> {
  let config: Config
  config = loadConfig()
  const folio = await startFolio(config)
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

  const user = program.command('user').description('manage user accounts')

  user
    .command('add <name>')
    .description('create a user; prints a generated password unless --password-stdin is given')
    .option('--admin', 'give the user admin rights', false)
    .option('--password-stdin', 'read the password from standard input', false)
    .action(async (name: string, options: { admin: boolean; passwordStdin: boolean }) => {
      const password = options.passwordStdin ? await readStdin() : generatePassword()
      await withContext((ctx) => createUser(ctx, { userName: name, password, isAdmin: options.admin }))
      console.log(`created user ${name}${options.admin ? ' (admin)' : ''}`)
      if (!options.passwordStdin) console.log(`password: ${password}`)
    })

  user
    .command('list')
    .description('list users')
    .option('--json', 'print JSON', false)
    .action(async (options: { json: boolean }) => {
      const users = await withContext((ctx) => ctx.store.users.list())
      if (options.json) {
        const rows = users.map((u) => ({ id: u.id, userName: u.userName, isAdmin: u.isAdmin }))
        console.log(JSON.stringify(rows, null, 2))
        return
      }
      for (const u of users) console.log(`${u.userName}\t${u.isAdmin ? 'admin' : 'user'}\t${u.id}`)
    })

  user
    .command('passwd <name>')
    .description('set a new password (ends the user\'s sessions)')
    .requiredOption('--password-stdin', 'read the password from standard input')
    .action(async (name: string) => {
      const password = await readStdin()
      await withContext((ctx) => changePassword(ctx, name, password))
      console.log(`password changed for ${name}`)
    })

  user
    .command('admin <name>')
    .description('grant admin rights (or withdraw them with --revoke)')
    .option('--revoke', 'withdraw admin rights', false)
    .action(async (name: string, options: { revoke: boolean }) => {
      await withContext((ctx) => setAdmin(ctx, name, !options.revoke))
      console.log(`${name} is ${options.revoke ? 'no longer' : 'now'} an admin`)
    })

  user
    .command('remove <name>')
    .description('remove a user and end their sessions')
    .action(async (name: string) => {
      await withContext((ctx) => removeUser(ctx, name))
      console.log(`removed user ${name}`)
    })

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
