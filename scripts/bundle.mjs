#!/usr/bin/env node
// Bundles the compiled server (dist/cli/index.js and everything it imports) into
// dist/bundle/ with esbuild, which bin/folio.js runs. Why: Node's ES module loader costs
// time for each of the ~560 files a start would otherwise resolve, read and link (about
// half of the start-up time, by CPU profile); one file and a few lazily loaded chunks
// start in a fraction of that. Source maps map stack traces back to src/.
import { copyFile, readFile, rm } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const outdir = join(dist, 'bundle')

/**
 * Packages left to Node's loader: native addons (better-sqlite3), ones that start worker
 * threads from their own files (pino's transports), the optional drivers (PostgreSQL, S3)
 * that a default install never loads, and what main.ts loads on first use only (undici,
 * jose, prom-client, yazl): bundling those saves no start-up time, and a bundled undici
 * broke an editor's save into S3 (test/e2e/two-instances.test.ts); pdfjs-dist, the PDF text
 * reader, loads its worker from its own folder. test/e2e/bundle.test.ts
 * runs the bundle through each part loaded on first use.
 */
const EXTERNAL = [
  'better-sqlite3',
  'pg',
  '@aws-sdk/*',
  'pino',
  'pino-pretty',
  'undici',
  'jose',
  'prom-client',
  'yazl',
  'pdfjs-dist',
]

/**
 * A compiled module that finds files next to it (migrations, the web UI, package.json)
 * through import.meta.url; in the bundle that URL is the bundle's, so each such module
 * gets the URL its own file had in dist/, and the paths stay as written in src/.
 */
const keepOwnUrl = {
  name: 'keep-own-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8')
      if (!source.includes('import.meta.url')) return undefined
      const fromBundle = relative(outdir, args.path).split('\\').join('/')
      const own = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`
      return { contents: source.replaceAll('import.meta.url', own), loader: 'js', resolveDir: dirname(args.path) }
    })
  },
}

// Chunk names carry content hashes: clear the old ones.
await rm(outdir, { recursive: true, force: true })
await build({
  entryPoints: { folio: join(dist, 'cli', 'index.js') },
  outdir,
  bundle: true,
  // Chunks for what main.ts imports on first use (drivers, metrics, outbound clients).
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  sourcemap: true,
  // The source of every loaded module stays in memory (V8 compiles functions lazily from
  // it): without whitespace and with short local names it is about a third smaller (0.3 MiB
  // less resident). keepNames gives every function and class its own name back, which is
  // what stack traces show; source maps map the positions.
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  keepNames: true,
  external: EXTERNAL,
  // Bundled CommonJS packages (Fastify and its parts) call require() for Node's modules.
  banner: {
    js: "import { createRequire as __folioRequire } from 'node:module'; const require = __folioRequire(import.meta.url);",
  },
  plugins: [keepOwnUrl],
  logLevel: 'warning',
  legalComments: 'none',
})

// Files other than JavaScript that a compiled module opens beside itself (through its own
// import.meta.url, kept above): tsc copies none of them.
const ASSETS = ['drivers/converter-libreoffice/uno-bridge.py']
for (const asset of ASSETS) await copyFile(join(root, 'src', asset), join(dist, asset))
