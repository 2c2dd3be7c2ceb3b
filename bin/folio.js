#!/usr/bin/env node
// The `folio` command. Runs the compiled CLI bundled into dist/bundle/ (built by `npm ci`
// via the prepare script, or `npm run build`; see scripts/bundle.mjs for why a bundle).
import { runCli } from '../dist/bundle/folio.js'

await runCli(process.argv)
