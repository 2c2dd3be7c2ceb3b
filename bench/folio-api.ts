import { bodyChunks } from './body.js'
import type { FolioProcess } from './folio-process.js'
import { headerOf, jsonCall, pick, pickString, send, type Reply } from './http.js'
import { SkipScenario } from './scenario.js'

/** Uploads a body as a new file (raw upload, ?title=) and returns its id. */
export async function uploadFile(
  folio: FolioProcess,
  token: string,
  title: string,
  size: number,
): Promise<{ id: string; reply: Reply }> {
  const reply = await send(
    `${folio.url}/api/2.0/files/@my/upload?title=${encodeURIComponent(title)}`,
    'POST',
    {
      authorization: token,
      'content-type': 'application/octet-stream',
      'content-length': String(size),
    },
    bodyChunks(size),
  )
  if (reply.status !== 201) throw new Error(`upload of ${title} answered ${reply.status} ${reply.text}`)
  return { id: pickString(reply.json, 'response', 'id'), reply }
}

/** A WOPI access token for one file, as a WOPI host page gets it. */
export interface WopiAccess {
  fileId: string
  accessToken: string
  /** /wopi/files/<id>?access_token=... (path and query, from the server's root). */
  filePath: string
  /** /wopi/files/<id>/contents?access_token=... */
  contentsPath: string
}

/**
 * Asks the portal for a WOPI token (POST /api/2.0/files/file/{id}/wopi). When the
 * route does not exist yet (the WOPI host is not mounted) the scenario is skipped.
 */
export async function wopiAccess(folio: FolioProcess, token: string, fileId: string): Promise<WopiAccess> {
  const reply = await jsonCall(folio.url, 'POST', `/api/2.0/files/file/${fileId}/wopi`, { token })
  if (reply.status === 404 && pick(reply.json, 'statusCode') === 404 && !pick(reply.json, 'error', 'type')) {
    throw new SkipScenario('the WOPI host is not mounted (POST /api/2.0/files/file/{id}/wopi is 404)')
  }
  if (reply.status !== 200) throw new Error(`WOPI token request answered ${reply.status} ${reply.text}`)
  const accessToken = pickString(reply.json, 'response', 'accessToken')
  const query = `access_token=${encodeURIComponent(accessToken)}`
  return {
    fileId,
    accessToken,
    filePath: `/wopi/files/${fileId}?${query}`,
    contentsPath: `/wopi/files/${fileId}/contents?${query}`,
  }
}

/** A WOPI call on the file endpoint with an X-WOPI-Override and optional lock header. */
export function wopiPost(folio: FolioProcess, access: WopiAccess, override: string, lockId?: string): Promise<Reply> {
  const headers: Record<string, string> = { 'X-WOPI-Override': override }
  if (lockId !== undefined) headers['X-WOPI-Lock'] = lockId
  return jsonCall(folio.url, 'POST', access.filePath, { headers })
}

/** The current lock of a file by GetLock ('' when unlocked). */
export async function currentLock(folio: FolioProcess, access: WopiAccess): Promise<string> {
  const reply = await wopiPost(folio, access, 'GET_LOCK')
  if (reply.status !== 200) throw new Error(`GetLock answered ${reply.status} ${reply.text}`)
  return headerOf(reply.headers, 'x-wopi-lock')
}
