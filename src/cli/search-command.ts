import type { Command } from 'commander'
import type { App } from '../app/create-app.js'

/** `folio search reindex [--all]`: queue files for the search index and index them. */
export function addSearchCommand(program: Command, withApp: <T>(task: (app: App) => Promise<T>) => Promise<T>): void {
  const search = program.command('search').description('the search index')
  search
    .command('reindex')
    .description(
      'index the files whose current version is not indexed yet (or every file with --all); ' +
        'running instances share the work',
    )
    .option('--all', 'read every file again, not only those not indexed yet', false)
    .action(async (options: { all: boolean }) => {
      const { queued, indexed } = await withApp(async (app) => {
        const queued = await app.search.reindex(options.all)
        return { queued, indexed: await app.search.runPending() }
      })
      console.log(`queued ${queued} file(s); indexed ${indexed} here (running instances index the rest)`)
    })
}
