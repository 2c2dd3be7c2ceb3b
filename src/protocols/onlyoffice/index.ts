import type { AdapterContext } from '../../app/index.js'
import type { HttpPlugin } from '../http/server.js'
import { callbackRoutes } from './callback.js'
import { convertSourceRoutes } from './converter-transport.js'
import { downloadRoutes } from './download.js'
import { editorPageRoutes, shareLinkPageRoutes } from './editor-page.js'
import type { DocsFetcher } from './docs-fetch.js'
import { docsSettingWarnings, requireDocsSettings } from './services.js'

/**
 * The ONLYOFFICE Docs integration in native ("callback") mode: the editing callback,
 * the links Docs downloads from (documents, and the sources of conversions) and the editor page. Mounted by the composition root
 * only when FOLIO_DOCS_URL is set; warns at start-up about risky settings.
 */
export function onlyofficeIntegration(ctx: AdapterContext, fetch: DocsFetcher): HttpPlugin {
  const docs = requireDocsSettings(ctx)
  for (const warning of docsSettingWarnings(docs)) ctx.logger.warn(warning)
  return async (app) => {
    await app.register(callbackRoutes(ctx, fetch))
    await app.register(downloadRoutes(ctx))
    await app.register(convertSourceRoutes(ctx))
    await app.register(editorPageRoutes(ctx))
    await app.register(shareLinkPageRoutes(ctx))
  }
}
