import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { fileRow, overflowsSideways, submitSignIn, unexpectedErrors } from '../support/web-ui.js'

const PHONE = { width: 390, height: 844 }

/** Elements reaching past the right edge of the viewport (to say what overflows). */
function widerThanScreen(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('main *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
  )
}

describe('web UI: the rough edges a person meets first (no editor configured)', () => {
  let server: TestServer
  let b: TestBrowser
  let admin: string
  let docId: string

  const upload = async (title: string, body: string, token = admin) => {
    const reply = await call(server.url, 'POST', `/api/2.0/files/@my/upload?title=${encodeURIComponent(title)}`, {
      token,
      raw: body,
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response
  }
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
    docId = (await upload('Report.docx', 'report')).id
    await upload('notes.txt', 'plain text')
    await call(server.url, 'POST', '/api/2.0/people', {
      token: admin,
      body: { userName: 'member', password: 'member-password', displayName: 'Member Person' },
    })
    b = await launchBrowser()
    b.page.setDefaultTimeout(30_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('the sign-in page tells a first-time admin where the first password is', async () => {
    const { page } = b
    await page.goto(`${server.url}/sign-in`)
    await page.getByText('First time here?').click()
    const hint = (await page.locator('.first-sign-in').textContent()) ?? ''
    assert.match(hint, /server's log when Folio starts for the first time/)
    assert.match(hint, /folio user passwd admin/)
    await b.screenshot('sign-in-first-time')
  })

  test('file names open the file, type icons differ per type, and no editor is offered to a person', async () => {
    const { page } = b
    await signInAs(page, 'member', 'member-password')
    await upload('memo.txt', 'a memo', await signIn(server.url, 'member', 'member-password'))
    await page.reload()
    const row = fileRow(page, 'memo.txt')
    await row.waitFor()
    const name = row.getByRole('link', { name: 'memo.txt', exact: true })
    assert.match((await name.getAttribute('href')) ?? '', /^\/files\/[^/]+\/preview$/)
    assert.equal(await row.getByRole('button', { name: /in the editor/ }).count(), 0, 'no editor button for a person')
    assert.equal(await row.getByRole('link', { name: /in the editor/ }).count(), 0)
    // The name opens the preview page, which offers the download (and no editor).
    await name.click()
    await page.locator('pre.preview-text').filter({ hasText: 'a memo' }).waitFor()
    assert.equal(await page.getByRole('link', { name: /Open in editor/ }).count(), 0)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download', exact: true }).click(),
    ])
    assert.equal(download.suggestedFilename(), 'memo.txt')
    await page.getByRole('button', { name: 'Sign out' }).click()

    await signInAs(page, 'admin', server.adminPassword)
    const txtIcon = fileRow(page, 'notes.txt').locator('svg.file-icon')
    const docxIcon = fileRow(page, 'Report.docx').locator('svg.file-icon')
    assert.equal(await txtIcon.getAttribute('aria-label'), 'Text')
    assert.equal(await docxIcon.getAttribute('aria-label'), 'Document')
    assert.notEqual(await txtIcon.innerHTML(), await docxIcon.innerHTML())
    await b.screenshot('documents-icons')
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })

  test("a notice leaves the list's buttons clickable, wraps names between words and stays on its screen", async () => {
    const { page } = b
    await page.setViewportSize(PHONE)
    try {
      await page.goto(`${server.url}/`)
      const row = fileRow(page, 'Report.docx')
      // At phone width Rename is in the row's "More actions" menu.
      await row.getByRole('button', { name: 'More actions for Report.docx' }).click()
      await page.getByRole('menuitem', { name: 'Rename' }).click()
      const longName = 'Quarterly report for the board of directors meeting in the spring.docx'
      const input = page.getByRole('textbox', { name: 'New name for Report.docx' })
      await input.fill(longName)
      await input.press('Enter')
      const notice = page.locator('.notice').filter({ hasText: 'Renamed to' })
      await notice.waitFor()
      // A notice floats over the page; every button of the list still takes a click (a trial
      // click fails when something else would receive it).
      for (const button of await page
        .locator('table.files button:not([disabled]):visible, table.files a:visible')
        .all()) {
        await button.click({ trial: true, timeout: 3000 })
      }
      // Wrapped between words: every line of the message ends at a space or the end.
      const lines = await notice.locator('span').evaluate((span) => {
        const range = document.createRange()
        const text = span.firstChild
        if (!text || !text.textContent) return []
        const tops = new Map<number, number>()
        for (let i = 0; i < text.textContent.length; i++) {
          range.setStart(text, i)
          range.setEnd(text, i + 1)
          const top = Math.round(range.getBoundingClientRect().top)
          tops.set(top, i)
        }
        // Each line's last character and the next line's first.
        return [...tops.values()].map((last) => [text.textContent?.[last] ?? '', text.textContent?.[last + 1] ?? ''])
      })
      assert.ok(lines.length > 1, 'a long name needs more than one line at phone width')
      for (const [end, next] of lines) {
        assert.ok(end === ' ' || next === ' ' || next === '', `a line broke inside a word: '${end}|${next}'`)
      }
      await b.screenshot('notice-phone')
      assert.equal(await overflowsSideways(page), false)

      await fileRow(page, longName)
        .getByRole('button', { name: `More actions for ${longName}` })
        .click()
      await page.getByRole('menuitem', { name: 'Versions' }).click()
      await page.getByRole('heading', { name: /Versions of/ }).waitFor()
      assert.equal(await page.locator('.notice').count(), 0, 'the notice stayed on the documents screen')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  })

  test('version times show seconds when versions share a minute; the table fits a phone', async () => {
    const { page } = b
    // Three saves in quick succession through WOPI: three versions within a minute or two.
    const wopi = await call(server.url, 'POST', `/api/2.0/files/file/${docId}/wopi`, { token: admin })
    const query = `access_token=${encodeURIComponent(wopi.json.response.accessToken)}`
    const lock = { 'X-WOPI-Lock': 'L', 'Content-Type': 'application/x-www-form-urlencoded' }
    await call(server.url, 'POST', `/wopi/files/${docId}?${query}`, { headers: { ...lock, 'X-WOPI-Override': 'LOCK' } })
    for (const body of ['second', 'third']) {
      const put = await call(server.url, 'POST', `/wopi/files/${docId}/contents?${query}`, {
        headers: { 'X-WOPI-Lock': 'L', 'X-WOPI-Override': 'PUT' },
        raw: body,
      })
      assert.equal(put.status, 200, put.text)
    }
    await call(server.url, 'POST', `/wopi/files/${docId}?${query}`, {
      headers: { ...lock, 'X-WOPI-Override': 'UNLOCK' },
    })
    await page.setViewportSize(PHONE)
    try {
      await page.goto(`${server.url}/versions/${docId}`)
      const times = page.locator('.version-list time')
      await times.first().waitFor()
      const texts = await times.allTextContents()
      assert.ok(texts.length >= 3)
      // The WOPI saves share a minute (or two): those show seconds; a time without seconds
      // is the only one of its minute.
      const withSeconds = texts.filter((text) => /\d{1,2}:\d{2}:\d{2}/.test(text))
      assert.ok(withSeconds.length >= 2, texts.join(' / '))
      const minutes = texts.map((text) => /\d{1,2}:\d{2}/.exec(text)?.[0])
      texts.forEach((text, i) => {
        if (!withSeconds.includes(text))
          assert.equal(minutes.filter((m) => m === minutes[i]).length, 1, texts.join(' / '))
      })
      assert.equal(
        await overflowsSideways(page),
        false,
        `the versions table fits 390 px: ${await widerThanScreen(page)}`,
      )
      for (const button of await page.locator('.version-list button, .version-list a').all()) {
        const box = await button.boundingBox()
        assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, 'every button is on screen')
      }
      await b.screenshot('versions-phone')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  })

  test('granting or withdrawing admin rights asks first; the People page fits a phone', async () => {
    const { page } = b
    await page.setViewportSize(PHONE)
    try {
      await page.goto(`${server.url}/people`)
      const toggle = page.getByRole('checkbox', { name: 'member is an admin' })
      await toggle.waitFor()
      assert.equal(
        await overflowsSideways(page),
        false,
        `no sideways scrolling at 390 px: ${await widerThanScreen(page)}`,
      )
      await b.screenshot('people-phone')

      await toggle.click()
      const ask = page.getByRole('dialog', { name: 'Make member an admin?' })
      await ask.waitFor()
      await b.screenshot('people-confirm-admin')
      await ask.getByRole('button', { name: 'Cancel' }).click()
      await ask.waitFor({ state: 'detached' })
      assert.equal(await toggle.isChecked(), false, 'nothing changed without confirming')
      const people = await call(server.url, 'GET', '/api/2.0/people', { token: admin })
      assert.equal(people.json.response.find((p: { userName: string }) => p.userName === 'member').isAdmin, false)

      await toggle.click()
      await page
        .getByRole('dialog', { name: 'Make member an admin?' })
        .getByRole('button', { name: 'Make admin' })
        .click()
      await page.waitForFunction(() => {
        const box = document.querySelector<HTMLInputElement>('input[aria-label="member is an admin"]')
        return box?.checked === true
      })
      await toggle.click()
      const withdraw = page.getByRole('dialog', { name: 'Withdraw admin rights from member?' })
      await withdraw.getByRole('button', { name: 'Withdraw admin rights' }).click()
      await page.waitForFunction(() => {
        const box = document.querySelector<HTMLInputElement>('input[aria-label="member is an admin"]')
        return box?.checked === false
      })
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })

  test('an admin disables a person from the People page (asked first) and enables them again', async () => {
    const { page } = b
    const memberSignIn = () =>
      call(server.url, 'POST', '/api/2.0/authentication.json', {
        body: { userName: 'member', password: 'member-password' },
      })
    const session = (await memberSignIn()).json.response.token
    await page.goto(`${server.url}/people`)
    const row = page.getByRole('row').filter({ has: page.getByText('member', { exact: true }) })
    await row.getByRole('button', { name: 'Disable member' }).click()
    const ask = page.getByRole('dialog', { name: 'Disable member?' })
    await ask.getByRole('button', { name: 'Disable' }).click()
    await row.getByText('disabled', { exact: true }).waitFor()
    await b.screenshot('people-disabled')
    assert.equal((await call(server.url, 'GET', '/api/2.0/people/@self', { token: session })).status, 401)
    const refused = await memberSignIn()
    assert.equal(refused.status, 403)
    assert.equal(refused.json.error.type, 'USER_DISABLED')
    assert.equal(await page.getByRole('button', { name: 'Disable admin' }).count(), 0, 'not oneself')

    await row.getByRole('button', { name: 'Enable member' }).click()
    await row.getByRole('button', { name: 'Disable member' }).waitFor()
    assert.equal(await row.getByText('disabled', { exact: true }).count(), 0)
    assert.equal((await memberSignIn()).status, 201)
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })

  test('pages a browser opens that cannot be shown answer a readable page with a way back', async () => {
    const { page } = b
    const deleted = await upload('Doomed.docx', 'x')
    await call(server.url, 'DELETE', `/api/2.0/files/file/${deleted.id}?immediately=true`, { token: admin })
    const cases: Array<[string, string, RegExp]> = [
      ['no-editor', `/editor/${docId}`, /No online editor here/],
      ['unknown-path', '/this/is/not/a/page', /There is no page here/],
      ['deleted-file', `/editor/${deleted.id}`, /This document is not here/],
    ]
    for (const [name, path, heading] of cases) {
      const response = await page.goto(server.url + path)
      assert.equal(response?.status(), 404, path)
      await page.getByRole('heading', { name: heading }).waitFor()
      assert.doesNotMatch((await page.locator('body').textContent()) ?? '', /FOLIO_|statusCode|"message"/)
      await b.screenshot(`error-page-${name}`)
      await page.getByRole('link', { name: 'Back to your documents' }).click()
      await page
        .getByRole('heading', { name: /Documents/ })
        .first()
        .waitFor()
    }
  })
})
