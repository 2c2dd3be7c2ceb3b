import type { AdapterContext } from '../../app/index.js'
import { documentKey } from '../../core/documents/document-key.js'
import { DomainError } from '../../core/errors.js'
import type { AccessLevel } from '../../core/sharing/access-levels.js'
import type { FileRecord, UserRecord, VersionRecord } from '../../core/entities.js'
import { COMMAND_ERRORS, type DocsCommandClient } from './command-client.js'
import type { DocsFetcher } from './docs-fetch.js'
import { toInternalDocsUrl } from './docs-url.js'
import { buildEditorConfig, editorConfigFor, type EditorConfig, type EditorMode } from './editor-config.js'
import { apiScriptUrl } from './editor-page.js'
import { historyData, refreshHistoryData, type HistoryData, type RefreshHistoryData } from './history.js'
import type { LinkHolder } from './links.js'
import { requireDocsSettings } from './services.js'

/** The ONLYOFFICE pieces the portal's editor routes present (the composition root hands them over). */
export interface OnlyofficeEditorTools {
  requireDocs(): void
  editorConfig(
    file: FileRecord,
    user: UserRecord,
    mode: EditorMode,
    access: AccessLevel,
    link?: string,
    denyDownload?: boolean,
  ): Promise<EditorConfig>
  forcesave(file: FileRecord): Promise<{ key: string; result: 'requested' | 'not-modified' }>
  refreshHistoryData(file: FileRecord, versions: VersionRecord[], names: Map<string, string>): RefreshHistoryData
  historyData(file: FileRecord, version: VersionRecord, holder: LinkHolder): Promise<HistoryData>
  vetDocsLink(url: string): string | undefined
  fetch: DocsFetcher
  docsVersion(): Promise<string>
  docsApiUrl(): string
  deviceEditorConfig(
    file: FileRecord,
    user: UserRecord,
    mode: EditorMode,
    access: AccessLevel,
    documentUrl: string,
  ): EditorConfig
}

/** How long Docs' version is kept once known, and how soon a failed ask is tried again (ms). */
const DOCS_VERSION_TTL_MS = 10 * 60_000
const DOCS_VERSION_RETRY_MS = 60_000

/** Builds the editor tools over the one command client and fetcher of this process. */
export function onlyofficeEditorTools(
  ctx: AdapterContext,
  commands: DocsCommandClient | undefined,
  fetch: DocsFetcher,
): OnlyofficeEditorTools {
  let knownVersion: { value: string; until: number } | undefined
  async function askDocsVersion(): Promise<string> {
    if (!commands) return ''
    const now = ctx.clock.now()
    if (knownVersion !== undefined && now < knownVersion.until) return knownVersion.value
    let value = ''
    try {
      const reply = await commands.send({ c: 'version' })
      if (reply.error === COMMAND_ERRORS.ok && typeof reply.version === 'string') value = reply.version
    } catch (error) {
      ctx.logger.warn({ err: error }, 'ONLYOFFICE Docs did not tell its version')
    }
    knownVersion = { value, until: now + (value === '' ? DOCS_VERSION_RETRY_MS : DOCS_VERSION_TTL_MS) }
    return value
  }
  return {
    docsVersion: askDocsVersion,
    docsApiUrl: () => (ctx.config.docs ? apiScriptUrl(ctx.config.docs.url) : ''),
    deviceEditorConfig: (file, user, mode, access, documentUrl) => {
      const config = buildEditorConfig({
        file,
        user: { id: user.id, name: user.displayName },
        requestedMode: mode,
        access,
        downloadUrl: documentUrl,
        callbackUrl: '',
        lang: 'en',
      })
      // Saves come back through the portal (saveediting), never a callback.
      const editorConfig = { ...config.editorConfig }
      delete editorConfig.callbackUrl
      return { ...config, editorConfig }
    },
    requireDocs: () => void requireDocsSettings(ctx),
    editorConfig: (file, user, mode, access, link, denyDownload) =>
      editorConfigFor(ctx, file, user, mode, access, link, denyDownload),
    async forcesave(file) {
      requireDocsSettings(ctx)
      if (!commands) throw new DomainError('NOT_SUPPORTED', 'ONLYOFFICE Docs is not configured (FOLIO_DOCS_URL)')
      const key = documentKey(file.id, file.keyVersion)
      const reply = await commands.forcesave(key)
      if (reply.error === COMMAND_ERRORS.ok) return { key, result: 'requested' }
      // Nothing changed since the last save: no status 6 will come.
      if (reply.error === COMMAND_ERRORS.notModified) return { key, result: 'not-modified' }
      if (reply.error === COMMAND_ERRORS.unknownKey) {
        throw new DomainError('PRECONDITION_FAILED', 'the document is not open in ONLYOFFICE Docs')
      }
      throw new DomainError('UPSTREAM_FAILED', `ONLYOFFICE Docs refused the force save (error ${reply.error})`)
    },
    refreshHistoryData,
    historyData: (file, version, holder) => historyData(ctx, file, version, holder),
    vetDocsLink: (url) => toInternalDocsUrl(url, requireDocsSettings(ctx)),
    fetch,
  }
}
