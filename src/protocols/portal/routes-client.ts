import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import type { AdapterContext } from '../../app/index.js'
import { requirePortalUser } from './authenticate.js'
import type { EditorTools } from './routes-editor.js'
import { success } from './envelope.js'

/**
 * Folio's version from package.json at the repository root (three levels above this
 * module both as src/.../routes-client.ts and as dist/.../routes-client.js).
 */
function readVersion(): string {
  try {
    const text = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string') {
      return parsed.version
    }
  } catch {
    // An installation without its package.json reports no version.
  }
  return ''
}

const FOLIO_VERSION = readVersion()

/**
 * The `communityServer` version Folio reports in `settings/version/build`. ONLYOFFICE's
 * apps read it as the portal's Workspace version and change how they talk below certain
 * ones: iOS sends the token without `Bearer` below 10.0 and, below 11.5, builds its
 * sections from `@my`, `@share`, `@common`, `@projects` and `@trash` (two of which Folio
 * has not) instead of `@root`. Folio speaks the API of Workspace 11.5, so it says so;
 * its own version is in `folio`.
 */
export const PORTAL_API_VERSION = '11.5.0.1'

/**
 * What ONLYOFFICE's own clients ask before and right after signing in: capabilities (no
 * login; no LDAP, OAuth or SSO here), the build versions and the portal settings (not a
 * personal portal, not DocSpace). Each also answers with a '.json' suffix.
 */
export function clientRoutes(ctx: AdapterContext, tools: Pick<EditorTools, 'docsVersion'>) {
  return async (app: FastifyInstance): Promise<void> => {
    for (const path of ['/capabilities', '/capabilities.json']) {
      app.get(path, async () =>
        success({ ldapEnabled: false, oauthEnabled: false, providers: [], ssoLabel: '', ssoUrl: '' }),
      )
    }

    await app.register(async (signedIn) => {
      signedIn.addHook('preHandler', requirePortalUser(ctx))
      // documentServer: the connected Docs' own version ('' without Docs); Android co-edits
      // only when it matches the editors built into the app.
      for (const path of ['/settings/version/build', '/settings/version/build.json']) {
        signedIn.get(path, async () =>
          success({
            communityServer: PORTAL_API_VERSION,
            documentServer: await tools.docsVersion(),
            mailServer: '',
            folio: FOLIO_VERSION,
          }),
        )
      }
      for (const path of ['/settings', '/settings.json']) {
        signedIn.get(path, async () =>
          success({
            personal: false,
            docSpace: false,
            standalone: true,
            version: FOLIO_VERSION,
            utcOffset: '00:00:00',
            utcHoursOffset: 0,
            culture: 'en-US',
            timezone: 'UTC',
            trustedDomainsType: 0,
            passwordHash: null,
          }),
        )
      }
    })
  }
}
