import { join } from 'node:path'
import { freePort, spawnServer, type ChildServer } from '../child.js'

/** The baseline servers, each a file in this folder run as its own process. */
export type BaselineName = 'bare-server' | 'raw-save' | 'raw-download'

/** Starts a baseline server in a child process (with tsx, like the bench itself). */
export async function startBaseline(name: BaselineName, env: Record<string, string> = {}): Promise<ChildServer> {
  const port = await freePort()
  return spawnServer({
    label: `baseline ${name}`,
    args: ['--import', 'tsx', join(import.meta.dirname, `${name}.ts`)],
    env: { ...env, PORT: String(port) },
    port,
    // Every baseline answers any GET; this one is the cheapest.
    readyPath: '/ready',
  })
}
