#!/usr/bin/env node
// The `folio` command. Runs the compiled CLI from dist/ (built by `npm ci` via the
// prepare script, or `npm run build`).
import { runCli } from '../dist/cli/index.js'

await runCli(process.argv)
