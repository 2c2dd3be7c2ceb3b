#!/usr/bin/env node
// Writes gzip and brotli forms beside the built front end's files (dist/web), so the
// server reads them instead of compressing at every start. Run by `npm run build:web`
// after tsc, whose output holds the one rule of what is compressed and how.
import { fileURLToPath } from 'node:url'
import { writeCompressedForms } from '../dist/protocols/portal/web/static-assets.js'

await writeCompressedForms(fileURLToPath(new URL('../dist/web/', import.meta.url)))
