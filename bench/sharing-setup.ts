import type { FolioProcess } from './folio-process.js'
import { jsonCall, pickString } from './http.js'

/** Password of the second account the sharing figures use. */
const SHAREE_PASSWORD = 'bench-sharee-password'

async function expectOk(label: string, reply: Promise<{ status: number; text: string; json: unknown }>) {
  const done = await reply
  if (done.status !== 200 && done.status !== 201) throw new Error(`${label} answered ${done.status} ${done.text}`)
  return done
}

/** Creates a second account (as the admin) and returns its id and a portal token. */
export async function createSharee(folio: FolioProcess, adminToken: string, userName = 'sharee') {
  const created = await expectOk(
    'creating the sharee',
    jsonCall(folio.url, 'POST', '/api/2.0/people', {
      token: adminToken,
      body: { userName, password: SHAREE_PASSWORD },
    }),
  )
  const signedIn = await expectOk(
    "the sharee's sign-in",
    jsonCall(folio.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName, password: SHAREE_PASSWORD },
    }),
  )
  return { id: pickString(created.json, 'response', 'id'), token: pickString(signedIn.json, 'response', 'token') }
}

/** Shares a folder with a user at a FileShare level (1 ReadWrite, 2 Read, ...). */
export async function shareFolder(
  folio: FolioProcess,
  ownerToken: string,
  folderId: string,
  userId: string,
  access: number,
) {
  await expectOk(
    'sharing the folder',
    jsonCall(folio.url, 'PUT', `/api/2.0/files/folder/${folderId}/share`, {
      token: ownerToken,
      body: { share: [{ shareTo: userId, access }] },
    }),
  )
}

/** Creates a folder under `parent` ('@my' or an id) and returns its id. */
export async function createFolder(folio: FolioProcess, token: string, parent: string, title: string): Promise<string> {
  const reply = await expectOk(
    'creating a folder',
    jsonCall(folio.url, 'POST', `/api/2.0/files/folder/${parent}`, {
      token,
      body: { title },
    }),
  )
  return pickString(reply.json, 'response', 'id')
}

/** Moves files into a folder (fileops/move). */
export async function moveFiles(folio: FolioProcess, token: string, fileIds: string[], destFolderId: string) {
  await expectOk(
    'moving files',
    jsonCall(folio.url, 'PUT', '/api/2.0/files/fileops/move', {
      token,
      body: { destFolderId, fileIds, folderIds: [] },
    }),
  )
}
