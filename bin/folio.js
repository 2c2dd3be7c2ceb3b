#!/usr/bin/env node
// The `folio` command. Runs the compiled CLI bundled into dist/bundle/ (built by `npm ci`
// via the prepare script, or `npm run build`; see scripts/bundle.mjs for why a bundle),
// on the Node.js Folio needs (bin/runtime.js): the bundle is imported only once that holds.
import { ensureRuntime } from './runtime.js'

if (await ensureRuntime()) {
  const { runCli } = await import('../dist/bundle/folio.js')
  await runCli(process.argv)
}
