import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { expectScreen, fileRow, submitSignIn } from '../support/web-ui.js'

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }

/** What a person meets in their first hour: losing access, new documents, notices, the header. */
describe('web UI: the first hour (no editor configured)', () => {
  let server: TestServer
  let b: TestBrowser
  let admin: string
  let bob: string
  let projectsId: string

  const signInAs = async (page: Page, userName: string, password: string) => {
    await page.goto(`${server.url}/sign-in`)
    await submitSignIn(page, userName, password)
    await page
      .getByRole('heading', { name: /Documents/ })
      .first()
      .waitFor()
  }

  before(async () => {
    server = await startTestServer()
    admin = await signIn(server.url)
    await call(server.url, 'POST', '/api/2.0/people', {
      token: admin,
      body: { userName: 'bob', password: 'bob-password', displayName: 'Bob Builder' },
    })
    bob = await signIn(server.url, 'bob', 'bob-password')
    // Enough folders that a new file, listed after them, starts off-screen.
    for (let i = 0; i < 12; i++) {
      const made = await call(server.url, 'POST', '/api/2.0/files/folder/@my', {
        token: bob,
        body: { title: `Folder ${i}` },
      })
      assert.equal(made.status, 201, made.text)
    }
    const projects = await call(server.url, 'POST', '/api/2.0/files/folder/@my', {
      token: admin,
      body: { title: 'Projects' },
    })
    projectsId = projects.json.response.id
    b = await launchBrowser()
    b.page.setDefaultTimeout(20_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('a signed-out page load logs no error in the console', async () => {
    const { page } = b
    b.errors.length = 0
    await page.goto(`${server.url}/`)
    await page.getByLabel('User name').waitFor()
    await page.goto(`${server.url}/trash`)
    await page.getByLabel('User name').waitFor()
    assert.deepEqual(b.errors, [])
  })

  test('at phone width the header still says who is signed in', async () => {
    const { page } = b
    await page.setViewportSize(PHONE)
    await signInAs(page, 'bob', 'bob-password')
    const who = page.locator('header .who')
    assert.equal(await who.isVisible(), true)
    assert.match((await who.textContent()) ?? '', /Bob Builder/)
    const box = await who.boundingBox()
    assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, `the name fits the screen: ${JSON.stringify(box)}`)
    await b.screenshot('first-hour-header-390')
    await page.setViewportSize(DESKTOP)
    await b.screenshot('first-hour-header-1280')
  })

  test('losing access to the folder on screen says so and offers the way home', async () => {
    const { page } = b
    const shared = await call(server.url, 'PUT', `/api/2.0/files/folder/${projectsId}/share`, {
      token: admin,
      body: {
        share: [
          {
            shareTo: (await call(server.url, 'GET', '/api/2.0/people/@self', { token: bob })).json.response.id,
            access: 1,
          },
        ],
      },
    })
    assert.equal(shared.status, 200, shared.text)
    for (const width of [DESKTOP, PHONE]) {
      await page.setViewportSize(width)
      await page.goto(`${server.url}/folders/${encodeURIComponent(projectsId)}`)
      await expectScreen(page, 'Projects')
    }
    await page.setViewportSize(DESKTOP)
    await page.goto(`${server.url}/folders/${encodeURIComponent(projectsId)}`)
    await expectScreen(page, 'Projects')
    const bobId = (await call(server.url, 'GET', '/api/2.0/people/@self', { token: bob })).json.response.id
    const revoked = await call(server.url, 'PUT', `/api/2.0/files/folder/${projectsId}/share`, {
      token: admin,
      body: { share: [{ shareTo: bobId, access: 0 }] },
    })
    assert.equal(revoked.status, 200, revoked.text)
    // Coming back to the tab reloads the list.
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')))
    await page.getByRole('heading', { level: 1, name: 'You no longer have access to this folder' }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Retry' }).count(), 0)
    assert.equal(await page.locator('table.files').count(), 0, 'no empty table under the message')
    assert.equal(await page.getByRole('button', { name: 'Upload files' }).count(), 0)
    await b.screenshot('first-hour-access-removed-1280')
    await page.setViewportSize(PHONE)
    await b.screenshot('first-hour-access-removed-390')
    await page.setViewportSize(DESKTOP)
    await page.getByRole('link', { name: 'Back to your documents' }).click()
    await expectScreen(page, 'Documents')
  })

  test('New document explains itself without an editor, then scrolls to and highlights the new file', async () => {
    const { page } = b
    await page.setViewportSize({ width: 1280, height: 600 })
    await page.goto(`${server.url}/`)
    await expectScreen(page, 'Documents')
    await page.getByRole('button', { name: 'New document' }).click()
    const dialog = page.getByRole('dialog', { name: 'New document' })
    assert.match((await dialog.textContent()) ?? '', /No online editor is connected/)
    await dialog.getByLabel('Name').fill('Minutes')
    await b.screenshot('first-hour-new-document-dialog-1280')
    await page.setViewportSize(PHONE)
    await b.screenshot('first-hour-new-document-dialog-390')
    await page.setViewportSize({ width: 1280, height: 600 })
    await dialog.getByRole('button', { name: 'Create' }).click()
    const row = fileRow(page, 'Minutes.docx')
    await row.waitFor()
    await page.waitForFunction(() => document.querySelector('tr.just-made') !== null)
    assert.match((await row.getAttribute('class')) ?? '', /just-made/)
    // Listed after twelve folders, it starts below the fold; the list scrolls to it.
    await page.waitForFunction(() => {
      const box = document.querySelector('tr.just-made')?.getBoundingClientRect()
      return box !== undefined && box.top >= 0 && box.bottom <= window.innerHeight
    })
    assert.ok(await page.evaluate(() => window.scrollY > 0), 'the page scrolled')
    await b.screenshot('first-hour-new-document-1280')
    await page.setViewportSize(PHONE)
    await row.scrollIntoViewIfNeeded()
    await b.screenshot('first-hour-new-document-390')
    await page.setViewportSize(DESKTOP)
  })

  test('notices float over the page: nothing moves and the buttons under them stay clickable', async () => {
    const { page } = b
    // Bob is signed in in the browser.
    const made = await call(server.url, 'POST', '/api/2.0/files/@my/file', {
      token: bob,
      body: { title: 'Agenda.docx' },
    })
    assert.equal(made.status, 201, made.text)
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size)
      await page.goto(`${server.url}/`)
      await expectScreen(page, 'Documents')
      // The list's place on the page (not on the screen: clicking a row may scroll).
      const listTop = () =>
        page.evaluate(() => (document.querySelector('table.files')?.getBoundingClientRect().top ?? 0) + window.scrollY)
      // Any notice will do: a rename announces one.
      const row = fileRow(page, 'Agenda.docx')
      await row.waitFor()
      const before = await listTop()
      // At phone width Rename is in the row's "More actions" menu.
      const phone = size === PHONE
      const rowButton = (of: typeof row) => of.getByRole('button', { name: phone ? /More actions/ : /Rename/ })
      const startRename = async (of: typeof row) => {
        await rowButton(of).click()
        if (phone) await page.getByRole('menuitem', { name: 'Rename' }).click()
      }
      await startRename(row)
      const input = page.getByRole('textbox', { name: 'New name for Agenda.docx' })
      await input.fill('Agenda 2.docx')
      await input.press('Enter')
      await page.locator('.notice').first().waitFor()
      assert.equal(await listTop(), before, 'the list did not move down')
      const notice = await page.locator('.notices').boundingBox()
      assert.ok(
        notice && (notice.y + notice.height >= size.height - 40 || notice.y <= 40),
        `in a corner: ${JSON.stringify(notice)}`,
      )
      await b.screenshot(`first-hour-notice-${size.width}`)
      // The list's buttons still take clicks (a trial click fails when something covers them).
      await page.getByRole('checkbox', { name: 'Select all' }).click({ trial: true, timeout: 3000 })
      const renamed = fileRow(page, 'Agenda 2.docx')
      await rowButton(renamed).click({ trial: true, timeout: 3000 })
      await startRename(renamed)
      await page.getByRole('textbox', { name: 'New name for Agenda 2.docx' }).fill('Agenda.docx')
      await page.getByRole('textbox', { name: 'New name for Agenda 2.docx' }).press('Enter')
      await fileRow(page, 'Agenda.docx').waitFor()
    }
    await page.setViewportSize(DESKTOP)
  })
})

describe('web UI: New document with an editor opens the new file in it', () => {
  let server: TestServer
  let b: TestBrowser

  before(async () => {
    server = await startTestServer({
      FOLIO_DOCS_URL: 'http://127.0.0.1:9/',
      FOLIO_DOCS_JWT_SECRET: 'a-secret-for-the-test-0123456789',
    })
    b = await launchBrowser()
    b.page.setDefaultTimeout(20_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('the editor opens in a new tab on the new file and the list highlights it', async () => {
    const { page, context } = b
    await page.goto(`${server.url}/sign-in`)
    await submitSignIn(page, 'admin', server.adminPassword)
    await expectScreen(page, 'Documents')
    await page.getByRole('button', { name: 'New spreadsheet' }).click()
    const dialog = page.getByRole('dialog', { name: 'New spreadsheet' })
    assert.doesNotMatch((await dialog.textContent()) ?? '', /No online editor/)
    await dialog.getByLabel('Name').fill('Budget')
    const tab = context.waitForEvent('page')
    await dialog.getByRole('button', { name: 'Create' }).click()
    const editor = await tab
    await editor.waitForURL(/\/doceditor\//)
    const token = await signIn(server.url)
    const listed = await call(server.url, 'GET', '/api/2.0/files/@my', { token })
    const made = listed.json.response.files.find((f: { title: string }) => f.title === 'Budget.xlsx')
    assert.ok(made, 'the file was made')
    assert.match(editor.url(), new RegExp(`/doceditor/${encodeURIComponent(made.id)}`))
    await editor.close()
    await page.waitForFunction(() => document.querySelector('tr.just-made') !== null)
  })
})
