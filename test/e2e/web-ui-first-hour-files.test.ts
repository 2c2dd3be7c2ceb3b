import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type TestBrowser } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { expectScreen, fileRow, folderRow, submitSignIn } from '../support/web-ui.js'

const PHONE = { width: 390, height: 844 }

/** Saves the screen at desktop and phone width (test-artifacts/screenshots/first-hour-<name>-*.png). */
async function bothWidths(b: TestBrowser, name: string): Promise<void> {
  const { page } = b
  const before = page.viewportSize() ?? { width: 1280, height: 800 }
  await b.screenshot(`first-hour-${name}-1280`)
  await page.setViewportSize(PHONE)
  await b.screenshot(`first-hour-${name}-390`)
  await page.setViewportSize(before)
}

describe('web UI: the first hour (what a new admin and two users meet)', () => {
  let server: TestServer
  let admin: string
  let member: string
  let memberId: string
  let b: TestBrowser
  let page: Page

  const api = async (method: string, path: string, body?: unknown, token = admin) =>
    call(server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })
  const upload = async (folder: string, title: string, text: string, token = admin) => {
    const reply = await call(server.url, 'POST', `/api/2.0/files/${folder}/upload?title=${encodeURIComponent(title)}`, {
      token,
      headers: { 'Content-Type': 'application/octet-stream' },
      raw: text,
    })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id as string
  }
  const folder = async (title: string, parent = '@my', token = admin) => {
    const reply = await api('POST', `/files/folder/${parent}`, { title }, token)
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id as string
  }
  // The member's password (test 6 changes it).
  const currentMemberPassword = async () =>
    await signIn(server.url, 'member', 'member-password-2').then(
      () => 'member-password-2',
      () => 'member-password',
    )
  const signInAs = async (browser: TestBrowser, userName: string, password: string) => {
    await browser.page.goto(`${server.url}/sign-in`)
    await submitSignIn(browser.page, userName, password)
    await expectScreen(browser.page, 'Documents')
  }

  before(async () => {
    server = await startTestServer()
    admin = await signIn(server.url)
    const made = await api('POST', '/people', {
      userName: 'member',
      password: 'member-password',
      displayName: 'Member Person',
      email: 'member@example.org',
    })
    assert.equal(made.status, 201, made.text)
    memberId = made.json.response.id
    await api('POST', '/people', {
      userName: 'colleague',
      password: 'colleague-password',
      displayName: 'Colleague Person',
      email: 'colleague@example.org',
    })
    member = await signIn(server.url, 'member', 'member-password')
    b = await launchBrowser()
    page = b.page
    page.setDefaultTimeout(30_000)
    await signInAs(b, 'admin', server.adminPassword)
  })
  after(async () => {
    await b?.close()
    await server?.dispose()
  })

  test('9. the versions page leads back to the file’s folder', async () => {
    const reports = await folder('Reports')
    const fileId = await upload(reports, 'Quarter.txt', 'q1')
    await page.goto(`${server.url}/versions/${fileId}`)
    await page.getByRole('heading', { name: 'Versions of Quarter.txt' }).waitFor()
    const back = page.getByRole('link', { name: /Back to Reports/ })
    await back.click()
    await expectScreen(page, 'Reports')
    await fileRow(page, 'Quarter.txt').waitFor()
    await page.goto(`${server.url}/versions/${fileId}`)
    await back.waitFor()
    await bothWidths(b, 'versions-back')
  })

  test('7. leaving while an upload runs asks first, and not after it ended', async () => {
    await page.goto(`${server.url}/`)
    await expectScreen(page, 'Documents')
    // The browser asks "Leave site?" when a beforeunload listener cancels the event.
    const warns = () =>
      page.evaluate(() => {
        const event = new Event('beforeunload', { cancelable: true })
        window.dispatchEvent(event)
        return event.defaultPrevented
      })
    assert.equal(await warns(), false, 'nothing is lost by leaving yet')
    let release = () => undefined as void
    const held = new Promise<void>((resolve) => (release = resolve))
    const isUpload = (url: URL) => url.pathname.endsWith('/upload')
    await page.route(isUpload, async (route) => {
      await held
      await route.continue()
    })
    await page
      .locator('input[type=file]')
      .setInputFiles({ name: 'Long upload.txt', mimeType: 'text/plain', buffer: Buffer.from('slow') })
    await page.locator('.upload[data-state="uploading"]').waitFor()
    assert.equal(await warns(), true, 'leaving during an upload asks first')
    release()
    await page.locator('.upload[data-state="done"]').waitFor()
    await fileRow(page, 'Long upload.txt').waitFor()
    assert.equal(await warns(), false, 'once it is stored, leaving asks nothing')
    await page.unroute(isUpload)
  })

  test('8. files dropped anywhere on the page upload, over a visible drop target; no drop opens the file', async () => {
    await page.goto(`${server.url}/`)
    await page.getByRole('button', { name: 'Upload files' }).waitFor()
    // Drag a file over the header, far from the list.
    await page.evaluate(() => {
      const data = new DataTransfer()
      data.items.add(new File(['dropped'], 'Dropped on the header.txt', { type: 'text/plain' }))
      Object.assign(window, { dropData: data })
      const header = document.querySelector('header')
      for (const type of ['dragenter', 'dragover'])
        header?.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }))
    })
    const target = page.getByText('Drop files to upload them')
    await target.waitFor({ state: 'visible' })
    const box = await target.locator('xpath=..').boundingBox()
    assert.ok(box && box.y <= 1, `the drop target covers the page from the top (${JSON.stringify(box)})`)
    await bothWidths(b, 'drop-target')
    const prevented = await page.evaluate(() => {
      const data = Reflect.get(window, 'dropData')
      const header = document.querySelector('header')
      return (
        header?.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true })) === false
      )
    })
    assert.equal(prevented, true, 'the browser does not open the dropped file')
    await fileRow(page, 'Dropped on the header.txt').waitFor()
    await target.waitFor({ state: 'hidden' })

    // Where nothing can be added (the trash, the versions page) a drop is still taken from the browser.
    for (const path of ['/trash', '/people']) {
      await page.goto(`${server.url}${path}`)
      await page.locator('h1').first().waitFor()
      const stillPrevented = await page.evaluate(() => {
        const data = new DataTransfer()
        data.items.add(new File(['x'], 'Nowhere.txt', { type: 'text/plain' }))
        return (
          document.body.dispatchEvent(
            new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }),
          ) === false
        )
      })
      assert.equal(stillPrevented, true, `a drop on ${path} does not open the file`)
    }
  })

  test('2. sharing: nobody is preselected; one field finds and picks; Share waits for a pick', async () => {
    await upload('@my', 'Plan to share.txt', 'plan')
    await page.goto(`${server.url}/`)
    await fileRow(page, 'Plan to share.txt').getByRole('button', { name: 'Share Plan to share.txt' }).click()
    const dialog = page.getByRole('dialog', { name: 'Share “Plan to share.txt”' })
    const person = dialog.getByRole('combobox', { name: 'Person', exact: true })
    const share = dialog.getByRole('button', { name: 'Share', exact: true })
    await person.waitFor()
    assert.equal(await share.isDisabled(), true, 'Share waits until someone is picked')
    assert.equal(await person.inputValue(), '', 'nobody is preselected')

    // An admin finds people by e-mail address too.
    await person.fill('member@exa')
    const options = dialog.getByRole('listbox', { name: 'People found' }).getByRole('option')
    await options.filter({ hasText: 'Member Person' }).waitFor()
    assert.equal(await options.count(), 1)
    // By user name, picked with the mouse.
    await person.fill('colleag')
    await options.filter({ hasText: 'Colleague Person' }).click()
    assert.equal(await person.inputValue(), 'Colleague Person')
    assert.equal(await share.isDisabled(), false)
    // Typing again undoes the pick; the keyboard picks too.
    await person.fill('Colleague P')
    assert.equal(await share.isDisabled(), true)
    await options.filter({ hasText: 'Colleague Person' }).waitFor()
    await bothWidths(b, 'share-person-picker')
    await person.press('ArrowDown')
    await person.press('Enter')
    assert.equal(await share.isDisabled(), false)
    await share.click()
    const list = dialog.getByRole('list', { name: 'Who has access' })
    await list.getByText('Colleague Person', { exact: true }).waitFor()
    assert.equal(await list.getByText('Member Person', { exact: true }).count(), 0)
    assert.equal(await person.inputValue(), '', 'the field is empty for the next person')
    assert.equal(await share.isDisabled(), true)
    await dialog.getByRole('button', { name: 'Done' }).click()
  })

  test('2. API: the people search looks in e-mail addresses for admins only', async () => {
    const byAdmin = await api('GET', '/people/filter?filterValue=colleague%40example')
    assert.deepEqual(
      byAdmin.json.response.map((p: { displayName: string }) => p.displayName),
      ['Colleague Person'],
    )
    const byMember = await api('GET', '/people/filter?filterValue=colleague%40example', undefined, member)
    assert.deepEqual(byMember.json.response, [], 'others’ addresses are not searched for a member')
    const byName = await api('GET', '/people/filter?filterValue=colleag', undefined, member)
    assert.deepEqual(
      byName.json.response.map((p: { displayName: string }) => p.displayName),
      ['Colleague Person'],
    )
  })

  test('1. a folder deleted while its page is in the history says where it went, with no live controls', async () => {
    const oldPlans = await folder('Old plans')
    await page.goto(`${server.url}/`)
    await folderRow(page, 'Old plans').getByRole('link', { name: 'Old plans' }).click()
    await expectScreen(page, 'Old plans')
    await page.getByRole('button', { name: 'Upload files' }).waitFor()
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click()
    await expectScreen(page, 'Documents')
    const removed = await api('DELETE', `/files/folder/${oldPlans}`)
    assert.equal(removed.status, 200, removed.text)
    for (let i = 0; i < 100; i++) {
      const trash = await api('GET', '/files/@trash')
      if (trash.json.response.folders.some((f: { id: string }) => f.id === oldPlans)) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await page.goBack()
    await page.getByRole('heading', { name: '“Old plans” is in the trash', level: 1 }).waitFor()
    assert.match((await page.locator('main').textContent()) ?? '', /deleted from My documents/)
    for (const control of ['Upload files', 'New folder', 'New document']) {
      assert.equal(await page.getByRole('button', { name: control }).count(), 0, `no ${control} for a trashed folder`)
    }
    await bothWidths(b, 'folder-in-trash')
    await page.getByRole('link', { name: 'Open the trash' }).click()
    await expectScreen(page, 'Trash')
    await folderRow(page, 'Old plans').waitFor()

    // Deleted for good: the way home, still no controls.
    const gone = await api('DELETE', `/files/folder/${oldPlans}?immediately=true`)
    assert.equal(gone.status, 200, gone.text)
    for (let i = 0; i < 100; i++) {
      if ((await api('GET', `/files/folder/${oldPlans}`)).status === 404) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await page.goto(`${server.url}/folders/${oldPlans}`)
    await page.getByRole('heading', { name: 'You no longer have access to this folder', level: 1 }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Upload files' }).count(), 0)
    await bothWidths(b, 'folder-gone')
    await page.getByRole('main').getByRole('link', { name: 'Back to your documents' }).click()
    await expectScreen(page, 'Documents')
  })

  test('5. the name a new item or a rename will get is shown before saving; changed upload names are listed', async () => {
    await page.goto(`${server.url}/`)
    await page.getByRole('button', { name: 'New document' }).click()
    const create = page.getByRole('dialog', { name: 'New document' })
    await create.getByLabel('Name').fill('Meeting: notes? <v2>')
    await create.getByText('Will be saved as “Meeting_ notes_ _v2_.docx”').waitFor()
    await bothWidths(b, 'name-preview')
    await create.getByRole('button', { name: 'Create' }).click()
    await fileRow(page, 'Meeting_ notes_ _v2_.docx').waitFor()

    await upload('@my', 'Draft.txt', 'draft')
    await page.reload()
    await fileRow(page, 'Draft.txt').getByRole('button', { name: 'Rename Draft.txt' }).click()
    await page.getByLabel('New name for Draft.txt').fill('Draft|final.txt')
    await page.getByText('Will be saved as “Draft_final.txt”').waitFor()
    await page.getByRole('button', { name: 'Save' }).click()
    await fileRow(page, 'Draft_final.txt').waitFor()

    await page.locator('input[type=file]').setInputFiles([
      { name: 'Agenda: today?.txt', mimeType: 'text/plain', buffer: Buffer.from('agenda') },
      { name: 'Plain.txt', mimeType: 'text/plain', buffer: Buffer.from('plain') },
    ])
    await fileRow(page, 'Agenda_ today_.txt').waitFor()
    const changed = page.getByRole('region', { name: 'Names changed on upload' })
    await changed.waitFor()
    assert.deepEqual(
      (await changed.getByRole('listitem').allTextContents()).map((t) => t.trim()),
      ['“Agenda: today?.txt” was saved as “Agenda_ today_.txt”'],
    )
    await bothWidths(b, 'upload-renamed')
  })

  test('6. the name in the header opens the profile: password change and signing out elsewhere', async () => {
    const m = await launchBrowser()
    try {
      m.page.setDefaultTimeout(30_000)
      await signInAs(m, 'member', 'member-password')
      const elsewhere = await signIn(server.url, 'member', 'member-password')
      const wopiFileId = await upload('@my', 'Mine.txt', 'mine', member)
      const minted = await call(server.url, 'POST', `/api/2.0/files/file/${wopiFileId}/wopi`, { token: member })
      assert.equal(minted.status, 200, minted.text)
      const wopiToken: string = minted.json.response.accessToken
      const info = await call(
        server.url,
        'GET',
        `/wopi/files/${wopiFileId}?access_token=${encodeURIComponent(wopiToken)}`,
      )
      assert.equal(info.status, 200, 'the WOPI token works before the change')

      await m.page
        .getByRole('banner')
        .getByRole('link', { name: /Member Person/ })
        .click()
      await expectScreen(m.page, 'Your profile')
      const facts = (await m.page.locator('.profile-facts').textContent()) ?? ''
      assert.match(facts, /Member Person/)
      assert.match(facts, /member@example\.org/)
      await bothWidths(m, 'profile')

      const form = m.page.getByRole('form', { name: 'Change your password' })
      await form.getByLabel('Current password').fill('not-my-password')
      await form.getByLabel('New password', { exact: true }).fill('member-password-2')
      await form.getByLabel('New password again').fill('member-password-2')
      await form.getByRole('button', { name: 'Change password' }).click()
      await form.getByRole('alert').getByText('The current password is not right.').waitFor()
      assert.equal(
        (await api('GET', '/people/@self', undefined, elsewhere)).status,
        200,
        'a refused change ends nothing',
      )

      await form.getByLabel('Current password').fill('member-password')
      await form.getByRole('button', { name: 'Change password' }).click()
      await m.page.getByText('Your password is changed. Your other sessions are signed out.').waitFor()
      // This browser stays signed in; the other sessions and the WOPI token ended.
      await m.page.reload()
      await expectScreen(m.page, 'Your profile')
      assert.equal((await api('GET', '/people/@self', undefined, elsewhere)).status, 401)
      assert.equal((await api('GET', '/people/@self', undefined, member)).status, 401)
      const checkFileInfo = await call(
        server.url,
        'GET',
        `/wopi/files/${wopiFileId}?access_token=${encodeURIComponent(wopiToken)}`,
      )
      assert.equal(checkFileInfo.status, 401, 'the WOPI token ended')
      member = await signIn(server.url, 'member', 'member-password-2')

      await m.page.getByRole('button', { name: 'Sign out other sessions' }).click()
      await m.page.getByText('You are signed out everywhere else.').waitFor()
      assert.equal((await api('GET', '/people/@self', undefined, member)).status, 401)
      await m.page.reload()
      await expectScreen(m.page, 'Your profile')
      member = await signIn(server.url, 'member', 'member-password-2')
    } finally {
      await m.close()
    }
  })

  test('6. API: PUT people/@self/password needs the current password; others’ passwords are for admins', async () => {
    const self = (await api('GET', '/people/@self', undefined, member)).json.response.id
    const missing = await api('PUT', `/people/${self}/password`, { password: 'member-password-3' }, member)
    assert.equal(missing.status, 400, missing.text)
    const wrong = await api(
      'PUT',
      '/people/@self/password',
      { password: 'member-password-3', currentPassword: 'nope' },
      member,
    )
    assert.equal(wrong.status, 403, wrong.text)
    assert.equal(self, memberId)
    const adminId = (await api('GET', '/people/@self')).json.response.id
    const others = await api(
      'PUT',
      `/people/${adminId}/password`,
      { password: 'x-password-123', currentPassword: 'member-password-2' },
      member,
    )
    assert.equal(others.status, 403, 'a member cannot set an admin’s password')
    assert.equal((await api('GET', '/people/@self', undefined, member)).status, 200, 'nothing was changed')
  })

  test('4. full access inside a shared folder deletes, as ONLYOFFICE’s full access does; the folder itself stays the owner’s', async () => {
    const team = await folder('Team room')
    const inner = await folder('Inner', team)
    const shared = await api('PUT', `/files/folder/${team}/share`, { share: [{ shareTo: memberId, access: 1 }] })
    assert.equal(shared.status, 200, shared.text)
    const readOnly = await folder('Read only room')
    await api('PUT', `/files/folder/${readOnly}/share`, { share: [{ shareTo: memberId, access: 2 }] })
    const readOnlyFile = await upload(readOnly, 'Look only.txt', 'look')
    const theirs = await upload(team, 'Uploaded by member.txt', 'mine', member)

    const m = await launchBrowser()
    try {
      m.page.setDefaultTimeout(30_000)
      await signInAs(m, 'member', await currentMemberPassword())
      await m.page.goto(`${server.url}/folders/${team}`)
      await expectScreen(m.page, 'Team room')
      const row = fileRow(m.page, 'Uploaded by member.txt')
      await row.getByRole('button', { name: 'Delete Uploaded by member.txt' }).click()
      const confirm = m.page.getByRole('dialog')
      await confirm.getByRole('button', { name: /Delete|Move to trash/ }).click()
      await row.waitFor({ state: 'detached' })
      await folderRow(m.page, 'Inner').getByRole('button', { name: 'Delete Inner' }).waitFor()
      await bothWidths(m, 'full-access-delete')
      // The shared folder itself is the owner's to delete; a read-only share deletes nothing.
      await m.page.goto(`${server.url}/shared`)
      await folderRow(m.page, 'Team room').waitFor()
      assert.equal(await folderRow(m.page, 'Team room').getByRole('button', { name: 'Delete Team room' }).count(), 0)
      await m.page.goto(`${server.url}/folders/${readOnly}`)
      await fileRow(m.page, 'Look only.txt').waitFor()
      assert.equal(
        await fileRow(m.page, 'Look only.txt').getByRole('button', { name: 'Delete Look only.txt' }).count(),
        0,
      )
    } finally {
      await m.close()
    }
    // The API agrees: the deleted file is in the owner's trash; the rest is refused.
    const trash = await api('GET', '/files/@trash')
    assert.ok(
      trash.json.response.files.some((f: { id: string }) => f.id === theirs),
      'in the owner’s trash',
    )
    const removeInner = await api('DELETE', `/files/folder/${inner}`, undefined, member)
    assert.equal(removeInner.status, 200, removeInner.text)
    const removeRoom = await api('PUT', '/files/fileops/delete', { folderIds: [team], fileIds: [] }, member)
    assert.notEqual(removeRoom.status, 200, 'the shared folder itself is not the sharee’s to delete')
    const removeReadOnly = await api('PUT', '/files/fileops/delete', { folderIds: [], fileIds: [readOnlyFile] }, member)
    assert.equal(removeReadOnly.status, 403, removeReadOnly.text)
    assert.equal((await api('GET', `/files/file/${readOnlyFile}`)).status, 200)
  })

  test('3. the owner sees what is shared: a marker per share and per link, and a "Shared by me" filter', async () => {
    const room = await folder('Shared room')
    assert.equal(
      (await api('PUT', `/files/folder/${room}/share`, { share: [{ shareTo: memberId, access: 2 }] })).status,
      200,
    )
    const linked = await upload('@my', 'Linked.txt', 'linked')
    assert.equal((await api('PUT', `/files/file/${linked}/sharedlink`, { share: 2 })).status, 200)
    await upload('@my', 'Private.txt', 'private')

    await page.goto(`${server.url}/`)
    const roomMark = folderRow(page, 'Shared room').getByRole('img', { name: 'Shared with Member Person' })
    await roomMark.waitFor()
    assert.equal(await roomMark.getAttribute('title'), 'Shared with Member Person')
    const linkMark = fileRow(page, 'Linked.txt').getByRole('img', { name: 'Link on: anyone with the link can view' })
    await linkMark.waitFor()
    assert.equal(await fileRow(page, 'Private.txt').locator('.sharing-mark').count(), 0)

    await page.getByRole('checkbox', { name: 'Shared by me' }).check()
    await fileRow(page, 'Private.txt').waitFor({ state: 'detached' })
    await folderRow(page, 'Shared room').waitFor()
    await fileRow(page, 'Linked.txt').waitFor()
    await bothWidths(b, 'shared-by-me')
    await page.getByRole('checkbox', { name: 'Shared by me' }).uncheck()
    await fileRow(page, 'Private.txt').waitFor()
  })

  test('3. API: items say whether, with whom and by which link they are shared, to their owner only', async () => {
    const mine = (await api('GET', '/files/@my')).json.response
    const room = mine.folders.find((f: { title: string }) => f.title === 'Shared room')
    assert.equal(room.shared, true)
    assert.deepEqual(room.sharedWith, [{ id: memberId, displayName: 'Member Person' }])
    assert.equal(room.sharedLink, null)
    const linked = mine.files.find((f: { title: string }) => f.title === 'Linked.txt')
    assert.deepEqual([linked.shared, linked.sharedWith, linked.sharedLink], [true, [], 2])
    const hidden = mine.files.find((f: { title: string }) => f.title === 'Private.txt')
    assert.deepEqual([hidden.shared, hidden.sharedWith, hidden.sharedLink], [false, [], null])
    const one = (await api('GET', `/files/file/${linked.id}`)).json.response
    assert.equal(one.sharedLink, 2)
    // The sharee sees nothing of the owner's sharing.
    const theirs = (await api('GET', '/files/@share', undefined, member)).json.response
    const seen = theirs.folders.find((f: { title: string }) => f.title === 'Shared room')
    assert.ok(seen)
    assert.deepEqual([seen.shared, seen.sharedWith, seen.sharedLink], [false, [], null])
  })
})
