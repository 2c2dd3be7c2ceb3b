import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { expectScreen, fileRow } from '../support/web-ui.js'

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }

/** Nothing wider than the screen: no sideways scrolling, every button of the page on it. */
async function assertNothingOverflows(page: Page, what: string): Promise<void> {
  const found = await page.evaluate(() => {
    const width = document.documentElement.clientWidth
    const outside = Array.from(
      document.querySelectorAll('main button, main a.button, header a, header button, dialog button'),
    )
      .filter((element) => element instanceof HTMLElement && element.offsetParent !== null)
      .map((element) => ({ text: (element.textContent ?? '').trim(), box: element.getBoundingClientRect() }))
      .filter(({ box }) => box.width > 0 && (box.left < -1 || box.right > width + 1))
      .map(({ text, box }) => `${text} [${Math.round(box.left)}–${Math.round(box.right)}]`)
    return { scrollWidth: document.documentElement.scrollWidth, width, outside }
  })
  assert.deepEqual(found.outside, [], `${what}: controls outside the ${found.width} px screen`)
  assert.ok(
    found.scrollWidth <= found.width,
    `${what}: the page is ${found.scrollWidth} px wide on a ${found.width} px screen`,
  )
}

/** The interface in German, French and Spanish: from the browser, and from the profile page. */
describe('web UI: languages', () => {
  let server: TestServer
  let b: TestBrowser
  let page: Page
  let updated: string

  before(async () => {
    server = await startTestServer()
    const admin = await signIn(server.url)
    const reply = await call(server.url, 'POST', '/api/2.0/files/@my/upload?title=Bericht.txt', {
      token: admin,
      headers: { 'Content-Type': 'application/octet-stream' },
      raw: 'x'.repeat(1536),
    })
    assert.equal(reply.status, 201, reply.text)
    updated = reply.json.response.updated
    b = await launchBrowser({ locale: 'de-DE' })
    page = b.page
    page.setDefaultTimeout(20_000)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('a German browser gets the sign-in page in German, with <html lang="de">', async () => {
    await page.goto(`${server.url}/sign-in`)
    await page.getByRole('heading', { level: 1, name: 'Bei Folio anmelden' }).waitFor()
    assert.equal(await page.locator('html').getAttribute('lang'), 'de')
    await page.getByLabel('Benutzername').fill('admin')
    await page.getByLabel('Passwort').fill('wrong-password')
    await page.getByRole('button', { name: 'Anmelden' }).click()
    await page.getByRole('alert').filter({ hasText: 'Benutzername oder Passwort ist falsch.' }).waitFor()
    await page.getByLabel('Passwort').fill(ADMIN_PASSWORD)
    await page.getByRole('button', { name: 'Anmelden' }).click()
    await expectScreen(page, 'Meine Dokumente')
    // The wrong password's 401 is expected; from here on the console stays clean.
    b.errors.length = 0
  })

  test('navigation, sizes and dates are German; so is a dialog, and nothing overflows at 390 px', async () => {
    const nav = page.getByRole('navigation', { name: 'Hauptmenü' })
    for (const name of ['Meine Dokumente', 'Für mich freigegeben', 'Papierkorb', 'Personen']) {
      await nav.getByRole('link', { name }).waitFor()
    }
    const row = fileRow(page, 'Bericht.txt')
    assert.equal(await row.locator('.col-size').textContent(), '1,5 kB')
    const germanDate = new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })
    assert.equal(await row.locator('.col-modified time').textContent(), germanDate.format(Date.parse(updated)))
    await row.getByRole('img', { name: 'Text' }).waitFor()
    await page.getByRole('button', { name: 'Bericht.txt löschen' }).waitFor()
    await b.screenshot('languages-de-documents-1280')
    await page.setViewportSize(PHONE)
    await assertNothingOverflows(page, 'German documents at 390 px')
    await b.screenshot('languages-de-documents-390')
    await page.setViewportSize(DESKTOP)

    await page.getByRole('button', { name: 'Neues Dokument' }).click()
    const dialog = page.getByRole('dialog', { name: 'Neues Dokument' })
    await dialog.getByLabel('Name').waitFor()
    assert.equal(await dialog.getByLabel('Name').inputValue(), 'Neues Dokument')
    await dialog.getByText('Mit Folio ist kein Online-Editor verbunden', { exact: false }).waitFor()
    await dialog.getByLabel('Name').fill('Notiz: neu')
    await dialog.getByText('Wird gespeichert als „Notiz_ neu.docx“').waitFor()
    await b.screenshot('languages-de-dialog-1280')
    await page.setViewportSize(PHONE)
    await assertNothingOverflows(page, 'German dialog at 390 px')
    await b.screenshot('languages-de-dialog-390')
    await page.setViewportSize(DESKTOP)
    await dialog.getByRole('button', { name: 'Abbrechen' }).click()
    await dialog.waitFor({ state: 'hidden' })

    // The share dialog's longest labels ("Vollzugriff (bearbeiten)", the link's access).
    // At phone width Share is in the row's "More actions" menu.
    await page.setViewportSize(PHONE)
    await page.getByRole('button', { name: 'Weitere Aktionen für Bericht.txt' }).click()
    await page.getByRole('menuitem', { name: 'Freigeben' }).click()
    const share = page.getByRole('dialog', { name: '„Bericht.txt“ freigeben' })
    await share.getByRole('heading', { name: 'Wer hat Zugriff' }).waitFor()
    await share.getByLabel('Jeder mit dem Link, ohne Konto').check()
    await share.getByLabel('Zugriff über den Link').waitFor()
    await assertNothingOverflows(page, 'German share dialog at 390 px')
    await b.screenshot('languages-de-share-390')
    await share.getByRole('button', { name: 'Fertig' }).click()
    await share.waitFor({ state: 'hidden' })

    // The screens with the longest German words: People (its table and form) and the trash.
    await page.setViewportSize(PHONE)
    await page.getByRole('link', { name: 'Personen' }).click()
    await expectScreen(page, 'Personen')
    await page.getByRole('button', { name: 'Person hinzufügen' }).waitFor()
    // At phone width each row names its admin switch (a CSS label taken from the catalog).
    const adminCell = page.locator('.people-list .col-admin').first()
    assert.equal(await adminCell.evaluate((cell) => getComputedStyle(cell, '::before').content), '"Administrator "')
    await assertNothingOverflows(page, 'German people at 390 px')
    await b.screenshot('languages-de-people-390')
    await page.getByRole('link', { name: 'Papierkorb' }).click()
    await expectScreen(page, 'Papierkorb')
    await page.getByText('Der Papierkorb ist leer.').waitFor()
    await assertNothingOverflows(page, 'German trash at 390 px')
    await page.setViewportSize(DESKTOP)
    await b.screenshot('languages-de-trash-1280')
    await page.getByRole('link', { name: 'Meine Dokumente' }).click()
    await expectScreen(page, 'Meine Dokumente')
  })

  test('choosing French on the profile page changes the interface at once and survives a reload', async () => {
    await page.locator('header .who').click()
    await expectScreen(page, 'Ihr Profil')
    const kept = page.waitForResponse((response) => response.url().endsWith('/people/@self/culture'))
    await page.getByLabel('Sprache der Oberfläche').selectOption({ label: 'Français' })
    assert.equal((await kept).status(), 200)
    await expectScreen(page, 'Votre profil')
    assert.equal(await page.locator('html').getAttribute('lang'), 'fr')
    await page
      .getByRole('navigation', { name: 'Navigation principale' })
      .getByRole('link', { name: 'Mes documents' })
      .waitFor()
    await b.screenshot('languages-fr-profile-1280')
    await page.setViewportSize(PHONE)
    await assertNothingOverflows(page, 'French profile at 390 px')
    await b.screenshot('languages-fr-profile-390')
    await page.setViewportSize(DESKTOP)

    await page.reload()
    await expectScreen(page, 'Votre profil')
    assert.equal(await page.locator('html').getAttribute('lang'), 'fr')
    assert.equal(await page.getByLabel('Langue de l’interface').inputValue(), 'fr')
    await page.getByRole('link', { name: 'Mes documents' }).click()
    await expectScreen(page, 'Mes documents')
    // French puts a narrow no-break space between number and unit.
    const size = await fileRow(page, 'Bericht.txt').locator('.col-size').textContent()
    assert.equal(size?.replace(/\s/gu, ' '), '1,5 ko')
    await page.getByRole('button', { name: 'Supprimer Bericht.txt' }).waitFor()
  })

  test('the choice is kept with the account: a Spanish browser that signs in as the same person gets French', async () => {
    const other = await launchBrowser({ locale: 'es-ES', viewport: PHONE })
    try {
      const page2 = other.page
      page2.setDefaultTimeout(20_000)
      await page2.goto(`${server.url}/sign-in`)
      await page2.getByRole('heading', { level: 1, name: 'Iniciar sesión en Folio' }).waitFor()
      await page2.getByLabel('Nombre de usuario').fill('admin')
      await page2.getByLabel('Contraseña').fill(ADMIN_PASSWORD)
      await page2.getByRole('button', { name: 'Iniciar sesión' }).click()
      await expectScreen(page2, 'Mes documents')
      assert.equal(await page2.locator('html').getAttribute('lang'), 'fr')
      // And the next visit's sign-in page already speaks it.
      await page2.getByRole('button', { name: 'Se déconnecter' }).click()
      await page2.getByRole('heading', { level: 1, name: 'Se connecter à Folio' }).waitFor()
      await other.screenshot('languages-fr-sign-in-390', page2)
      assert.deepEqual(other.errors, [])
    } finally {
      await other.close()
    }
  })

  test('"as the browser" goes back to German, for the account too', async () => {
    await page.locator('header .who').click()
    await expectScreen(page, 'Votre profil')
    const kept = page.waitForResponse((response) => response.url().endsWith('/people/@self/culture'))
    await page.getByLabel('Langue de l’interface').selectOption({ label: 'Comme le navigateur : Deutsch' })
    assert.equal((await kept).status(), 200)
    await expectScreen(page, 'Ihr Profil')
    await page.reload()
    await expectScreen(page, 'Ihr Profil')
    assert.equal(await page.locator('html').getAttribute('lang'), 'de')
    const admin = await signIn(server.url)
    const self = await call(server.url, 'GET', '/api/2.0/people/@self', { token: admin })
    assert.equal(self.json.response.cultureName, '')
    assert.deepEqual(b.errors, [])
  })
})
