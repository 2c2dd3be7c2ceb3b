import assert from 'node:assert/strict'
import type { Locator, Page } from 'playwright-core'

/** Helpers for driving Folio's web interface in the browser tests. */

/** Fills the sign-in form and submits it (it does not wait for the outcome). */
export async function submitSignIn(page: Page, userName: string, password: string): Promise<void> {
  await page.getByLabel('User name').fill(userName)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** The row of the documents table whose file name is exactly `title`. */
export function fileRow(page: Page, title: string): Locator {
  return page
    .locator('table.files tbody tr')
    .filter({ has: page.locator('.file-name').getByText(title, { exact: true }) })
}

/** The row of the documents table for the folder named exactly `title`. */
export function folderRow(page: Page, title: string): Locator {
  return page
    .locator('table.files tbody tr[data-kind="folder"]')
    .filter({ has: page.locator('.folder-name').getByText(title, { exact: true }) })
}

/** Waits for the screen whose main heading is exactly `title` (a folder, "Trash"...). */
export async function expectScreen(page: Page, title: string): Promise<void> {
  await page.getByRole('heading', { name: title, exact: true, level: 1 }).waitFor()
}

/** Titles of the rows on the documents screen, top to bottom. */
export async function visibleTitles(page: Page): Promise<string[]> {
  return page.locator('table.files tbody .name-text .file-name').allTextContents()
}

/** Waits for the documents screen to list exactly these titles (in any order). */
export async function expectTitles(page: Page, titles: string[]): Promise<void> {
  await page.waitForFunction(
    (expected) => {
      const names = [...document.querySelectorAll('table.files tbody .name-text .file-name')].map((e) => e.textContent)
      return names.length === expected.length && expected.every((t) => names.includes(t))
    },
    titles,
    { timeout: 30_000 },
  )
}

/**
 * Interactive elements that have no accessible name, as Chromium computes it
 * (the accessibility tree over CDP). Returns a description of each.
 */
export async function unnamedControls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page)
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree')
    const interactive = new Set([
      'button',
      'link',
      'textbox',
      'searchbox',
      'checkbox',
      'combobox',
      'radio',
      'switch',
      'slider',
      'spinbutton',
      'menuitem',
      'tab',
      'progressbar',
      'dialog',
      'table',
      'image',
      'img',
    ])
    return nodes
      .filter((node) => !node.ignored && interactive.has(String(node.role?.value ?? '')))
      .filter((node) => String(node.name?.value ?? '').trim() === '')
      .map((node) => `${String(node.role?.value)} (backend node ${node.backendDOMNodeId ?? '?'})`)
  } finally {
    await cdp.detach()
  }
}

/** Asserts every control on the page has an accessible name. */
export async function assertAllControlsNamed(page: Page, screen: string): Promise<void> {
  assert.deepEqual(await unnamedControls(page), [], `unnamed controls on the ${screen} screen`)
}

/**
 * Presses Tab (at most `limit` times) until the focused element's accessible
 * name is `name`; fails when the keyboard cannot get there.
 */
export async function tabTo(page: Page, name: string, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab')
    const focused = await page.evaluate(() => {
      const element = document.activeElement
      if (!(element instanceof HTMLElement)) return ''
      const labelled = element.getAttribute('aria-label')
      if (labelled) return labelled
      if (element instanceof HTMLInputElement && element.labels?.[0]) return element.labels[0].textContent?.trim() ?? ''
      return element.textContent?.trim() ?? ''
    })
    if (focused === name) return
  }
  assert.fail(`the keyboard could not reach "${name}" in ${limit} presses of Tab`)
}

/** True when the page scrolls sideways (content wider than the viewport). */
export async function overflowsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)
}

/**
 * Console errors other than the browser's "Failed to load resource" lines for
 * expected 4xx replies and for requests the test's loopback guard refused.
 */
export function unexpectedErrors(errors: string[]): string[] {
  return errors.filter(
    (message) =>
      !/^Failed to load resource: (the server responded with a status of 4\d\d|net::ERR_BLOCKED_BY_CLIENT)/.test(
        message,
      ),
  )
}
