import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/**
 * Builds the web interface into dist/web, which Folio serves at `/`
 * (src/protocols/portal/web). Everything is bundled: nothing is fetched from another
 * origin at run time.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Small files stay files too: the CSP allows no data: scripts or styles.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    // `npx vite web` during development: the API comes from a running Folio.
    proxy: {
      '/api': 'http://localhost:8080',
      '/ui': 'http://localhost:8080',
      '/editor': 'http://localhost:8080',
      '/wopi-host': 'http://localhost:8080',
    },
  },
})
