import type { AppContext } from '../../app/context.js'
import type { HttpPlugin } from '../http/server.js'
import { callbackRoutes } from './callback.js'
import { downloadRoutes } from './download.js'
import { editorPageRoutes } from './editor-page.js'
import { docsSettingWarnings, fetcherFor, requireDocsSettings } from './services.js'

/**
 * The ONLYOFFICE Docs integration in native ("callback") mode: the editing callback,
 * the links Docs downloads from and the editor page. Mounted by the composition root
 * only when FOLIO_DOCS_URL is set; warns at start-up about risky settings.
 */
export function onlyofficeIntegration(ctx: AppContext): HttpPlugin {
  const docs = requireDocsSettings(ctx)
  for (const warning of docsSettingWarnings(docs)) ctx.logger.warn(warning)
  const fetch = fetcherFor(ctx)
  return async (app) => {
    await app.register(callbackRoutes(ctx, fetch))
    await app.register(downloadRoutes(ctx))
    await app.register(editorPageRoutes(ctx))
  }
}
