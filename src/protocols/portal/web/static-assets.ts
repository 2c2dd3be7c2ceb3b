import { createHash } from 'node:crypto'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { extname, join, relative, sep } from 'node:path'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'

/** One built front-end file, held in memory with its precompressed forms. */
export interface StaticAsset {
  body: Buffer
  gzip: Buffer | undefined
  brotli: Buffer | undefined
  contentType: string
  /** Strong ETag over the bytes. */
  etag: string
}

/** The build output: URL path ('/index.html', '/assets/index-1a2b.js') to file. */
export type StaticAssets = Map<string, StaticAsset>

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
}

// Below this size compression costs more than it saves.
const COMPRESS_MIN_BYTES = 1024

function isCompressible(contentType: string): boolean {
  return /^(text\/|application\/(json|manifest)|image\/svg)/.test(contentType)
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return listFiles(path)
      return Promise.resolve(entry.isFile() ? [path] : [])
    }),
  )
  return nested.flat()
}

/**
 * Suffixes of the compressed forms `npm run build:web` writes beside each file
 * (writeCompressedForms): brotli at quality 11 takes about a tenth of a second of CPU
 * and its buffers tens of MiB, which start-up then no longer pays.
 */
const GZIP_SUFFIX = '.gz'
const BROTLI_SUFFIX = '.br'

function isCompressedForm(file: string): boolean {
  return file.endsWith(GZIP_SUFFIX) || file.endsWith(BROTLI_SUFFIX)
}

function wantsCompression(file: string, body: Buffer): boolean {
  const contentType = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'
  return isCompressible(contentType) && body.length >= COMPRESS_MIN_BYTES
}

function gzipOf(body: Buffer): Buffer {
  return gzipSync(body, { level: 9 })
}

function brotliOf(body: Buffer): Buffer {
  return brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } })
}

async function readIfPresent(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file)
  } catch {
    return undefined
  }
}

/** Writes the gzip and brotli forms of each compressible file under `root` (build step). */
export async function writeCompressedForms(root: string): Promise<number> {
  let written = 0
  for (const file of await listFiles(root)) {
    if (isCompressedForm(file)) continue
    const body = await readFile(file)
    if (!wantsCompression(file, body)) continue
    await writeFile(file + GZIP_SUFFIX, gzipOf(body))
    await writeFile(file + BROTLI_SUFFIX, brotliOf(body))
    written++
  }
  return written
}

/**
 * Reads the built front end from `root` into memory (it is small), with gzip
 * and brotli forms of text files (the build's, see writeCompressedForms). Undefined when `root` has no index.html,
 * that is, when the front end has not been built.
 */
export async function loadStaticAssets(root: string): Promise<StaticAssets | undefined> {
  let files: string[]
  try {
    files = await listFiles(root)
  } catch {
    return undefined
  }
  const assets: StaticAssets = new Map()
  for (const file of files) {
    if (isCompressedForm(file)) continue
    const urlPath = '/' + relative(root, file).split(sep).join('/')
    const body = await readFile(file)
    const contentType = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'
    const compress = wantsCompression(file, body)
    // The forms the build wrote, else (a front end built without them) made here.
    assets.set(urlPath, {
      body,
      gzip: compress ? ((await readIfPresent(file + GZIP_SUFFIX)) ?? gzipOf(body)) : undefined,
      brotli: compress ? ((await readIfPresent(file + BROTLI_SUFFIX)) ?? brotliOf(body)) : undefined,
      contentType,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    })
  }
  return assets.has('/index.html') ? assets : undefined
}

/** The body to send for an Accept-Encoding header, and its Content-Encoding. */
export function pickEncoding(
  asset: StaticAsset,
  acceptEncoding: string | undefined,
): { body: Buffer; encoding: string | undefined } {
  const accepted = (acceptEncoding ?? '').toLowerCase()
  if (asset.brotli && /\bbr\b/.test(accepted)) return { body: asset.brotli, encoding: 'br' }
  if (asset.gzip && /\bgzip\b/.test(accepted)) return { body: asset.gzip, encoding: 'gzip' }
  return { body: asset.body, encoding: undefined }
}
