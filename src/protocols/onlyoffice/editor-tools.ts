import type { AdapterContext } from '../../app/index.js'
import { documentKey } from '../../core/documents/document-key.js'
import { DomainError } from '../../core/errors.js'
import type { AccessLevel } from '../../core/sharing/access-levels.js'
import type { FileRecord, UserRecord, VersionRecord } from '../../core/entities.js'
import { COMMAND_ERRORS, type DocsCommandClient } from './command-client.js'
import type { DocsFetcher } from './docs-fetch.js'
import { toInternalDocsUrl } from './docs-url.js'
import { editorConfigFor, type EditorConfig, type EditorMode } from './editor-config.js'
import { historyData, refreshHistoryData, type HistoryData, type RefreshHistoryData } from './history.js'
import type { LinkHolder } from './links.js'
import { requireDocsSettings } from './services.js'

/** The ONLYOFFICE pieces the portal's editor routes present (the composition root hands them over). */
export interface OnlyofficeEditorTools {
  requireDocs(): void
  editorConfig(file: FileRecord, user: UserRecord, mode: EditorMode, access: AccessLevel, link?: string): Promise<EditorConfig>
  forcesave(file: FileRecord): Promise<{ key: string; result: 'requested' | 'not-modified' }>
  refreshHistoryData(file: FileRecord, versions: VersionRecord[], names: Map<string, string>): RefreshHistoryData
  historyData(file: FileRecord, version: VersionRecord, holder: LinkHolder): Promise<HistoryData>
  vetDocsLink(url: string): string | undefined
  fetch: DocsFetcher
}

/** Builds the editor tools over the one command client and fetcher of this process. */
export function onlyofficeEditorTools(
  ctx: AdapterContext,
  commands: DocsCommandClient | undefined,
  fetch: DocsFetcher,
): OnlyofficeEditorTools {
  return {
    requireDocs: () => void requireDocsSettings(ctx),
    editorConfig: (file, user, mode, access, link) => editorConfigFor(ctx, file, user, mode, access, link),
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
