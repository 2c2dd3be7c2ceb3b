import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { overflowsSideways, submitSignIn, unexpectedErrors } from '../support/web-ui.js'

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }

/** Storage quotas in the browser: the People page for admins, one's own profile. */
describe('web UI: storage quotas', () => {
  let server: TestServer
  let b: TestBrowser
  let admin: string
  let doraId = ''

  const signInAs = async (page: Page, userName: string, password: string) => {
    await page.goto(`${server.url}/sign-in`)
    await submitSignIn(page, userName, password)
    await page
      .getByRole('heading', { name: /Documents/ })
      .first()
      .waitFor()
  }
  const doraQuota = async () =>
    (await call(server.url, 'GET', '/api/2.0/people', { token: admin })).json.response.find(
      (p: { id: string }) => p.id === doraId,
    ).quotaLimit

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'off' })
    admin = await signIn(server.url)
    const made = await call(server.url, 'POST', '/api/2.0/people', {
      token: admin,
      body: { userName: 'dora', password: 'dora-password', displayName: 'Dora' },
    })
    doraId = made.json.response.id
    const dora = await signIn(server.url, 'dora', 'dora-password')
    const uploaded = await call(server.url, 'POST', '/api/2.0/files/@my/upload?title=twelve.txt', {
      token: dora,
      raw: 'twelve bytes',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(uploaded.status, 201, uploaded.text)
    b = await launchBrowser()
    b.page.setDefaultTimeout(20_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('an admin sees used space on the People page and sets, refuses a bad size for, and removes a quota', async () => {
    const { page } = b
    await signInAs(page, 'admin', server.adminPassword)
    await page.goto(`${server.url}/people`)
    const row = page.getByRole('row').filter({ has: page.getByText('dora', { exact: true }) })
    await row.getByRole('cell', { name: '12 bytes', exact: true }).waitFor()
    assert.equal(await page.getByRole('columnheader', { name: 'Storage' }).count(), 1)

    await row.getByRole('button', { name: 'Set storage quota of dora' }).click()
    const dialog = page.getByRole('dialog', { name: 'Storage quota of dora' })
    await dialog.getByText('Uses 12 bytes now').waitFor()
    await dialog.getByLabel('Quota').fill('lots')
    await dialog.getByRole('button', { name: 'Set quota' }).click()
    await dialog
      .getByRole('alert')
      .getByText(/"lots" is not a size/)
      .waitFor()
    assert.equal(await doraQuota(), -1, 'nothing set')

    await dialog.getByLabel('Quota').fill('2KiB')
    await b.screenshot('people-quota-dialog-1280')
    await dialog.getByRole('button', { name: 'Set quota' }).click()
    await dialog.waitFor({ state: 'detached' })
    await row.getByRole('cell', { name: '12 bytes of 2.0 kB', exact: true }).waitFor()
    assert.equal(await doraQuota(), 2048)
    await b.screenshot('people-quota-1280')

    await page.setViewportSize(PHONE)
    try {
      await row.getByRole('button', { name: 'Set storage quota of dora' }).waitFor()
      assert.equal(await overflowsSideways(page), false, 'no sideways scrolling at 390 px')
      await b.screenshot('people-quota-390')
    } finally {
      await page.setViewportSize(DESKTOP)
    }

    await row.getByRole('button', { name: 'Set storage quota of dora' }).click()
    await dialog.getByLabel('Quota').fill('')
    await dialog.getByRole('button', { name: 'Set quota' }).click()
    await dialog.waitFor({ state: 'detached' })
    await row.getByRole('cell', { name: '12 bytes', exact: true }).waitFor()
    assert.equal(await doraQuota(), -1)
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })

  test('the profile page shows one’s own used space and quota', async () => {
    const { page } = b
    const self = (await call(server.url, 'GET', '/api/2.0/people/@self', { token: admin })).json.response
    const set = await call(server.url, 'PUT', '/api/2.0/people/userquota', {
      token: admin,
      body: { userIds: [self.id], quota: 5 * 1024 * 1024 },
    })
    assert.equal(set.status, 200, set.text)
    await page.goto(`${server.url}/profile`)
    const storage = page.getByRole('region', { name: 'Storage' })
    await storage.getByText('You use 0 bytes of your 5.0 MB quota.').waitFor()
    await storage.getByRole('progressbar', { name: 'Storage used' }).waitFor()
    await b.screenshot('profile-storage-1280')
    await page.setViewportSize(PHONE)
    try {
      assert.equal(await overflowsSideways(page), false)
      await b.screenshot('profile-storage-390')
    } finally {
      await page.setViewportSize(DESKTOP)
    }
    assert.deepEqual(unexpectedErrors(b.errors), [])
  })
})
