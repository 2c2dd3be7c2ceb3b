import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

/** Debian's Chromium (`apt-get install chromium`); .ci/run installs it when missing. */
export const CHROMIUM_PATH = process.env.FOLIO_CHROMIUM ?? '/usr/bin/chromium'

/** Where browser tests save screenshots; CI keeps this folder as artifacts. */
export const SCREENSHOT_DIR = resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots')

/** Flags for a quiet, offline, reproducible headless Chromium. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export interface TestBrowser {
  context: BrowserContext
  page: Page
  /** Messages of every page error and console error seen so far. */
  errors: string[]
  /** Texts of every alert/confirm/prompt that opened (each is dismissed). */
  dialogs: string[]
  /** Requests to anything but loopback, which were refused. */
  blocked: string[]
  /** Saves a full-page screenshot as test-artifacts/screenshots/<name>.png; returns the path. */
  screenshot(name: string, page?: Page): Promise<string>
  close(): Promise<void>
}

/**
 * Starts headless Chromium with a fresh profile (its own user-data-dir) and one
 * page. Fails with a clear message when Chromium is not installed.
 */
export async function launchBrowser(
  options: { viewport?: { width: number; height: number }; locale?: string } = {},
): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium package (apt-get install chromium)`)
  }
  const userDataDir = await mkdtemp(join(tmpdir(), 'folio-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    acceptDownloads: true,
    // English unless a test asks for another language (the interface follows the browser's).
    locale: options.locale ?? 'en-GB',
    timezoneId: 'UTC',
  })
  // Tests talk to loopback only: anything else (a CDN, the ONLYOFFICE api.js of a
  // made-up Docs address) is refused before it leaves the browser.
  const blocked: string[] = []
  await context.route(
    (url) => !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname),
    (route) => {
      blocked.push(route.request().url())
      return route.abort('blockedbyclient')
    },
  )
  const errors: string[] = []
  const dialogs: string[] = []
  const watch = (page: Page) => {
    page.on('pageerror', (error) => errors.push(error.message))
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
  }
  context.on('page', watch)
  // A persistent context opens with one page, which no 'page' event announces.
  const existing = context.pages()[0]
  if (existing) watch(existing)
  const page = existing ?? (await context.newPage())
  // Playwright turns on file-chooser interception when the first listener is added, with
  // an asynchronous call; a test that adds its listener right before pressing Enter can
  // lose that race and the chooser opens natively (no event). A standing listener keeps
  // interception on from the start.
  page.on('filechooser', () => undefined)
  await mkdir(SCREENSHOT_DIR, { recursive: true })
  return {
    context,
    page,
    errors,
    dialogs,
    blocked,
    async screenshot(name, target = page) {
      const path = join(SCREENSHOT_DIR, `${name}.png`)
      await target.screenshot({ path, fullPage: true })
      return path
    },
    async close() {
      await context.close().catch(() => undefined)
      await rm(userDataDir, { recursive: true, force: true })
    },
  }
}
