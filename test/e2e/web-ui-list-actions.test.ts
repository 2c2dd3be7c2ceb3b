import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { expectScreen, fileRow, folderRow, submitSignIn, unexpectedErrors } from '../support/web-ui.js'

const PHONE = { width: 390, height: 844 }

/** Saves the screen at desktop and phone width (test-artifacts/screenshots/list-actions-<name>-*.png). */
async function bothWidths(b: TestBrowser, name: string): Promise<void> {
  const before = b.page.viewportSize() ?? { width: 1280, height: 800 }
  await b.screenshot(`list-actions-${name}-1280`)
  await b.page.setViewportSize(PHONE)
  await b.screenshot(`list-actions-${name}-390`)
  await b.page.setViewportSize(before)
}

/** The accessible name (or text) of the focused element. */
async function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement
    if (!(element instanceof HTMLElement)) return ''
    return element.getAttribute('aria-label') ?? element.textContent?.trim() ?? ''
  })
}

describe('web UI: Copy to, keyboard shortcuts and "Shared by me" over the whole folder', () => {
  let server: TestServer
  let admin: string
  let memberId: string
  let b: TestBrowser
  let page: Page

  const api = async (method: string, path: string, body?: unknown) =>
    call(server.url, method, `/api/2.0${path}`, { token: admin, ...(body === undefined ? {} : { body }) })
  const upload = async (folder: string, title: string, text: string) => {
    const reply = await call(server.url, 'POST', `/api/2.0/files/${folder}/upload?title=${encodeURIComponent(title)}`, {
      token: admin,
      headers: { 'Content-Type': 'application/octet-stream' },
      raw: text,
    })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id as string
  }
  const folder = async (title: string, parent = '@my') => {
    const reply = await api('POST', `/files/folder/${parent}`, { title })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id as string
  }
  const titlesIn = async (folderId: string) => {
    const reply = await api('GET', `/files/${folderId}?count=1000`)
    assert.equal(reply.status, 200, reply.text)
    return (reply.json.response.files as Array<{ title: string }>).map((f) => f.title).sort()
  }

  before(async () => {
    server = await startTestServer()
    admin = await signIn(server.url)
    const made = await api('POST', '/people', { userName: 'member', password: 'member-password', displayName: 'Mia' })
    assert.equal(made.status, 201, made.text)
    memberId = made.json.response.id
    b = await launchBrowser()
    page = b.page
    page.setDefaultTimeout(30_000)
    await page.goto(`${server.url}/sign-in`)
    await submitSignIn(page, 'admin', server.adminPassword)
    await expectScreen(page, 'Documents')
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('Copy to: a row copies into the folder picked, a taken name gets a free one, the original stays', async () => {
    const archive = await folder('Archive')
    await upload('@my', 'Budget.txt', 'budget')
    await page.goto(`${server.url}/`)
    await fileRow(page, 'Budget.txt').getByRole('button', { name: 'Copy Budget.txt to…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Copy Budget.txt to' })
    await dialog.getByRole('button', { name: 'Archive' }).click()
    await dialog.getByRole('navigation', { name: 'Folder to copy to' }).getByText('Archive').waitFor()
    await bothWidths(b, 'copy-dialog')
    await dialog.getByRole('button', { name: 'Copy here' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByText('Copied Budget.txt to Archive').waitFor()
    assert.deepEqual(await titlesIn(archive), ['Budget.txt'])
    await fileRow(page, 'Budget.txt').waitFor()

    // Again: the name is taken in Archive, so the copy gets the next free one (as Move does).
    await fileRow(page, 'Budget.txt').getByRole('button', { name: 'Copy Budget.txt to…' }).click()
    await dialog.getByRole('button', { name: 'Archive' }).click()
    await dialog.getByRole('navigation', { name: 'Folder to copy to' }).getByText('Archive').waitFor()
    await dialog.getByRole('button', { name: 'Copy here' }).click()
    await dialog.waitFor({ state: 'detached' })
    assert.deepEqual(await titlesIn(archive), ['Budget (2).txt', 'Budget.txt'])
    assert.ok((await titlesIn('@my')).includes('Budget.txt'), 'the original stays')
  })

  test('Copy to from the selection bar copies a folder with its contents and several files at once', async () => {
    const plans = await folder('Plans')
    await upload(plans, 'Inside.txt', 'inside')
    await upload('@my', 'Loose.txt', 'loose')
    const target = await folder('Target')
    await page.goto(`${server.url}/`)
    await folderRow(page, 'Plans').getByRole('checkbox').check()
    await fileRow(page, 'Loose.txt').getByRole('checkbox').check()
    await page.getByRole('group', { name: 'Selected items' }).getByRole('button', { name: 'Copy to' }).click()
    const dialog = page.getByRole('dialog', { name: 'Copy 2 items to' })
    // The folder being copied is not offered as its own destination.
    await dialog.getByRole('button', { name: 'Target' }).waitFor()
    assert.equal(await dialog.getByRole('button', { name: 'Plans' }).count(), 0)
    await dialog.getByRole('button', { name: 'Target' }).click()
    await dialog.getByRole('navigation', { name: 'Folder to copy to' }).getByText('Target').waitFor()
    await dialog.getByRole('button', { name: 'Copy here' }).click()
    await page.getByText('Copied 2 items to Target').waitFor()
    assert.deepEqual(await titlesIn(target), ['Loose.txt'])
    const inTarget = (await api('GET', `/files/${target}`)).json.response
    const copiedPlans = inTarget.folders.find((f: { title: string }) => f.title === 'Plans')
    assert.ok(copiedPlans, 'the folder was copied')
    assert.deepEqual(await titlesIn(copiedPlans.id), ['Inside.txt'])
    // Nothing stays selected once it is done.
    await page.getByRole('group', { name: 'Selected items' }).waitFor({ state: 'detached' })
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })

  test('keyboard: arrows, Enter, Ctrl+A, Escape, F2, Delete and ? in the file list; never while typing', async () => {
    const keys = await folder('Keys')
    await upload(keys, 'Alpha.txt', 'a')
    await upload(keys, 'Beta.txt', 'b')
    await folder('Sub', keys)
    await page.goto(`${server.url}/folders/${keys}`)
    await expectScreen(page, 'Keys')
    await fileRow(page, 'Beta.txt').waitFor()
    // Sorted by name, so the order is known: Sub, Alpha.txt, Beta.txt.
    await page.getByRole('button', { name: /^Name/ }).click()
    await page.waitForFunction(() => document.querySelector('th.col-name')?.getAttribute('aria-sort') === 'ascending')
    await page.locator('h1').focus()

    // Arrows move between the rows' names.
    await page.keyboard.press('ArrowDown')
    assert.equal(await focusedName(page), 'Sub')
    await page.keyboard.press('ArrowDown')
    assert.equal(await focusedName(page), 'Alpha.txt')
    await page.keyboard.press('ArrowDown')
    assert.equal(await focusedName(page), 'Beta.txt')
    await page.keyboard.press('ArrowDown')
    assert.equal(await focusedName(page), 'Beta.txt', 'the last row keeps focus')
    await page.keyboard.press('ArrowUp')
    await page.keyboard.press('ArrowUp')
    assert.equal(await focusedName(page), 'Sub')

    // Enter opens the row; Back returns.
    await page.keyboard.press('Enter')
    await expectScreen(page, 'Sub')
    await page.goBack()
    await expectScreen(page, 'Keys')
    await fileRow(page, 'Beta.txt').waitFor()

    // Ctrl+A selects every row; Escape clears the selection.
    await page.locator('h1').focus()
    await page.keyboard.press('Control+a')
    const bar = page.getByRole('group', { name: 'Selected items' })
    await bar.getByText('3 selected').waitFor()
    assert.equal(await page.getByRole('checkbox', { name: 'Select all' }).isChecked(), true)
    await page.keyboard.press('Escape')
    await bar.waitFor({ state: 'detached' })

    // Not while typing: ? and Ctrl+A stay in the filter field.
    const filter = page.getByRole('searchbox', { name: 'Filter by name' })
    await filter.focus()
    await page.keyboard.type('?')
    await page.keyboard.press('Control+a')
    assert.equal(await filter.inputValue(), '?')
    assert.equal(await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).count(), 0)
    assert.equal(await bar.count(), 0)
    await filter.fill('')
    await fileRow(page, 'Beta.txt').waitFor()

    // ? opens the help overlay, an accessible dialog; Escape closes it.
    await page.locator('h1').focus()
    await page.keyboard.press('?')
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
    await help.waitFor()
    for (const does of ['Rename the row', 'Select every row on this page', 'Clear the selection']) {
      await help.getByText(does).waitFor()
    }
    await bothWidths(b, 'shortcuts-help')
    await page.keyboard.press('Escape')
    await help.waitFor({ state: 'detached' })

    // F2 renames the row with focus.
    await fileRow(page, 'Alpha.txt').locator('.file-name').focus()
    await page.keyboard.press('F2')
    const input = page.getByRole('textbox', { name: 'New name for Alpha.txt' })
    await input.waitFor()
    await page.keyboard.type('Gamma')
    await page.keyboard.press('Enter')
    await fileRow(page, 'Gamma.txt').waitFor()

    // Delete asks first (the existing confirmation), then moves the row to the trash.
    await fileRow(page, 'Beta.txt').locator('.file-name').focus()
    await page.keyboard.press('Delete')
    const confirm = page.getByRole('dialog', { name: 'Delete this file?' })
    await confirm.waitFor()
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await fileRow(page, 'Beta.txt').waitFor({ state: 'detached' })
    assert.deepEqual(await titlesIn(keys), ['Gamma.txt'])
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })

  test('"Shared by me" filters the whole folder on the server: shared items past the first page are found', async () => {
    const big = await folder('Big')
    // The shared ones are made first, so newest first they sit on the second page.
    const early = [await upload(big, 'Early shared.txt', 'e1'), await upload(big, 'Early linked.txt', 'e2')]
    const sharedFolder = await folder('Team', big)
    for (let i = 0; i < 104; i += 1) await upload(big, `Plain ${String(i).padStart(3, '0')}.txt`, `p${i}`)
    assert.equal(
      (await api('PUT', `/files/file/${early[0]}/share`, { share: [{ shareTo: memberId, access: 2 }] })).status,
      200,
    )
    assert.equal((await api('PUT', `/files/file/${early[1]}/sharedlink`, { share: 2 })).status, 200)
    assert.equal(
      (await api('PUT', `/files/folder/${sharedFolder}/share`, { share: [{ shareTo: memberId, access: 1 }] })).status,
      200,
    )

    // The API: the filter runs over the whole folder; total and pages count only those.
    const all = (await api('GET', `/files/${big}?count=2&sortBy=AZ&sortOrder=ascending&sharedByMe=true`)).json.response
    assert.equal(all.total, 3)
    assert.deepEqual(
      [...all.folders, ...all.files].map((item: { title: string }) => item.title),
      ['Team', 'Early linked.txt'],
    )
    const next = (await api('GET', `/files/${big}?count=2&startIndex=2&sortBy=AZ&sortOrder=ascending&sharedByMe=true`))
      .json.response
    assert.deepEqual(
      next.files.map((item: { title: string }) => item.title),
      ['Early shared.txt'],
    )
    const bad = await api('GET', `/files/${big}?sharedByMe=maybe`)
    assert.equal(bad.status, 400, bad.text)
    // A sharee sees none of the owner's sharing through the filter.
    const member = await signIn(server.url, 'member', 'member-password')
    const theirs = await call(server.url, 'GET', `/api/2.0/files/${sharedFolder}?sharedByMe=true`, { token: member })
    assert.equal(theirs.status, 200, theirs.text)
    assert.equal(theirs.json.response.total, 0)
    const section = await call(server.url, 'GET', '/api/2.0/files/@share?sharedByMe=true', { token: member })
    assert.equal(section.status, 200, section.text)
    assert.equal(section.json.response.total, 0, 'what others shared is not shared by me')
    const unfiltered = await call(server.url, 'GET', '/api/2.0/files/@share', { token: member })
    assert.ok(unfiltered.json.response.total >= 2)

    await page.goto(`${server.url}/folders/${big}`)
    await expectScreen(page, 'Big')
    await page.getByText('1–100 of 107').waitFor()
    assert.equal(await fileRow(page, 'Early shared.txt').count(), 0, 'on the second page before filtering')
    await page.getByRole('checkbox', { name: 'Shared by me' }).check()
    await page.getByText('1–3 of 3').waitFor()
    await fileRow(page, 'Early shared.txt').waitFor()
    await fileRow(page, 'Early linked.txt').waitFor()
    await folderRow(page, 'Team').waitFor()
    assert.equal(await page.getByRole('navigation', { name: 'Pages' }).count(), 0)
    await bothWidths(b, 'shared-by-me')
    await page.getByRole('checkbox', { name: 'Shared by me' }).uncheck()
    await page.getByText('1–100 of 107').waitFor()
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })
})
