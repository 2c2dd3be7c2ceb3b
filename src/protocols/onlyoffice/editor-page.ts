import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { type AdapterContext, userPrincipal } from '../../app/index.js'
import { isDomainError } from '../../core/errors.js'
import { extensionOf } from '../../core/names/file-names.js'
import { sendProblemPage } from '../http/error-page.js'
import { foundOrUndefined } from '../http/page-lookup.js'
import { guestIdOf, guestName } from '../http/guest-identity.js'
import { readPortalToken } from '../http/session-credentials.js'
import { editorConfigFor, type EditorConfig } from './editor-config.js'

/**
 * GET /editor/:fileId: the page that opens a file in ONLYOFFICE Docs. It loads Docs'
 * api.js, hands it the signed config and wires the editor's requests to the portal API
 * (same origin, the user's session cookie): save a copy, rename, history, restore.
 */

export interface EditorPageInput {
  /** FOLIO_DOCS_URL, where the browser loads api.js from. */
  docsUrl: string
  /** Path of the portal API as the browser sees it ('/api/2.0', or under a prefix). */
  apiBase: string
  fileId: string
  title: string
  config: EditorConfig
  /** Nonce of the page's own inline scripts (named in its Content-Security-Policy). */
  nonce: string
}

/** The address of Docs' editor API script. */
export function apiScriptUrl(docsUrl: string): string {
  return `${docsUrl.replace(/\/+$/, '')}/web-apps/apps/api/documents/api.js`
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

/** JSON that is safe inside a <script> element (no '</script>', no line separators). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

// Plain ES5 so it runs in any browser that runs the editor; no build step.
const PAGE_SCRIPT = `(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('folio-editor-data').textContent);
  var api = data.apiBase + '/files/file/' + encodeURIComponent(data.fileId);
  var docEditor;
  function call(method, path, body) {
    // X-Folio-Request: the portal's CSRF guard for cookie-authenticated writes.
    var headers = { Accept: 'application/json', 'X-Folio-Request': '1' };
    var init = { method: method, credentials: 'same-origin', headers: headers };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(api + path, init).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (json) {
        if (!response.ok || json.status !== 0) {
          throw new Error((json.error && json.error.message) || ('HTTP ' + response.status));
        }
        return json.response;
      });
    });
  }
  function tell(message) {
    if (docEditor && typeof docEditor.showMessage === 'function') docEditor.showMessage(message);
    else window.console.log(message);
  }
  function showHistory() {
    return call('GET', '/edit-history').then(function (history) { docEditor.refreshHistory(history); });
  }
  function historyFailed(error) { docEditor.refreshHistory({ error: error.message }); }
  var config = data.config;
  config.events = {
    onRequestSaveAs: function (event) {
      var d = event.data || {};
      call('POST', '/saveas', { url: d.url, title: d.title, fileType: d.fileType }).then(
        function (file) { tell('Saved a copy as ' + file.title); },
        function (error) { tell('Could not save a copy: ' + error.message); });
    },
    onRequestRename: function (event) {
      var title = String(event.data || '');
      var ext = '.' + data.extension;
      if (data.extension && title.toLowerCase().slice(-ext.length) !== ext) title += ext;
      call('PUT', '', { title: title }).catch(function (error) { tell('Could not rename: ' + error.message); });
    },
    onRequestHistory: function () { showHistory().catch(historyFailed); },
    onRequestHistoryData: function (event) {
      var version = event.data;
      call('GET', '/edit-history/' + encodeURIComponent(version) + '/data').then(
        function (d) { docEditor.setHistoryData(d); },
        function (error) { docEditor.setHistoryData({ error: error.message, version: version }); });
    },
    onRequestHistoryClose: function () { document.location.reload(); },
    onRequestRestore: function (event) {
      var version = event.data && event.data.version;
      call('POST', '/restore', { version: version }).then(showHistory).catch(historyFailed);
    }
  };
  if (typeof window.DocsAPI === 'undefined') {
    document.getElementById('folio-editor').textContent =
      'ONLYOFFICE Docs could not be reached at ' + data.docsUrl + '.';
    return;
  }
  docEditor = new window.DocsAPI.DocEditor('folio-editor', config);
})();`

/** The editor page's HTML. */
export function renderEditorPage(input: EditorPageInput): string {
  const data = {
    fileId: input.fileId,
    apiBase: input.apiBase,
    docsUrl: input.docsUrl,
    extension: extensionOf(input.title),
    config: input.config,
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)} - Folio</title>
<style>html, body { height: 100%; margin: 0; } #folio-editor { height: 100%; }</style>
<script src="${escapeHtml(apiScriptUrl(input.docsUrl))}"></script>
</head>
<body>
<div id="folio-editor"></div>
<script type="application/json" id="folio-editor-data">${scriptJson(data)}</script>
<script nonce="${input.nonce}">${PAGE_SCRIPT}</script>
</body>
</html>
`
}

/**
 * CSP of the editor page: scripts only by nonce (the page's own) or from Docs (api.js),
 * the editor frame from Docs. Inline styles stay allowed because api.js styles the frame
 * it adds; that is far less risky than script.
 */
export function editorPageContentSecurityPolicy(docsUrl: string, nonce: string): string {
  const docs = new URL(docsUrl).origin
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' ${docs}`,
    "style-src 'self' 'unsafe-inline'",
    `frame-src ${docs}`,
    `connect-src 'self' ${docs}`,
    `img-src 'self' data: ${docs}`,
    "frame-ancestors 'self'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ')
}

function sendHtml(reply: FastifyReply, status: number, html: string, csp?: string): FastifyReply {
  if (csp !== undefined) reply.header('Content-Security-Policy', csp)
  return (
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      // The page holds short-lived signed links: never cache it, never leak it as a referrer.
      .header('Cache-Control', 'no-store')
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Content-Type-Options', 'nosniff')
      .send(html)
  )
}

/** The portal API path as the browser sees it, under FOLIO_PUBLIC_URL's path. */
function apiBaseOf(publicUrl: string): string {
  return `${new URL(publicUrl).pathname.replace(/\/+$/, '')}/api/2.0`
}

/**
 * GET /s/:fileId/editor?doc=<key>&name=<name>: the editor of a file's share link. The
 * link's own page (`/s/:fileId`, in the web UI's adapter) asks the guest for the name
 * co-editors see and sends them here; they get the editor within the link's access (edit
 * for ReadWrite, Comment and Review; view for Read). A link that is off, replaced or not
 * this file's is "Not found".
 */
export function shareLinkPageRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Params: { fileId: string }; Querystring: { doc?: string; name?: string; mode?: string } }>(
      '/s/:fileId/editor',
      async (request, reply) => {
        const docs = ctx.config.docs
        const doc = typeof request.query.doc === 'string' ? request.query.doc.slice(0, 256) : ''
        const notFound = () => sendProblemPage(reply, 'NOT_FOUND')
        if (!docs || doc === '') return notFound()
        const guest = {
          id: guestIdOf(request, reply, ctx.config.publicUrl.startsWith('https:')),
          name: guestName(request.query.name),
        }
        const opened = await foundOrUndefined(ctx.app.sharing.linkPrincipal(request.params.fileId, doc, guest))
        if (!opened || opened.principal.kind !== 'link') return notFound()
        const mode = request.query.mode === 'view' ? 'view' : 'edit'
        let config: EditorConfig
        try {
          config = await editorConfigFor(
            ctx,
            opened.file,
            opened.principal.user,
            mode,
            opened.access,
            opened.principal.keyHash,
            opened.denyDownload,
          )
        } catch (error) {
          if (!isDomainError(error)) throw error
          return sendProblemPage(reply, 'NOT_SUPPORTED')
        }
        const nonce = randomBytes(16).toString('base64')
        const html = renderEditorPage({
          docsUrl: docs.url,
          apiBase: apiBaseOf(ctx.config.publicUrl),
          fileId: opened.file.id,
          title: opened.file.title,
          config,
          nonce,
        })
        return sendHtml(reply, 200, html, editorPageContentSecurityPolicy(docs.url, nonce))
      },
    )
  }
}

/** GET /editor/:fileId (?mode=view). Not signed in: redirect to `/?next=/editor/<id>`. */
export function editorPageRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    // /doceditor/ too: ONLYOFFICE's Desktop Editors open a portal URL with `doceditor` in
    // it as an editor tab of their own.
    for (const path of ['/editor/:fileId', '/doceditor/:fileId'])
      app.get<{ Params: { fileId: string }; Querystring: { mode?: string } }>(path, async (request, reply) => {
        const docs = ctx.config.docs
        const { fileId } = request.params
        const token = readPortalToken(request)
        const user =
          token === undefined
            ? undefined
            : await ctx.app.accounts.authenticateToken(token).catch((error: unknown) => {
                if (isDomainError(error)) return undefined
                throw error
              })
        if (!user) return reply.redirect(`/?next=/editor/${encodeURIComponent(fileId)}`, 302)
        const principal = userPrincipal(user)
        const file = await foundOrUndefined(ctx.app.files.get(principal, fileId))
        if (!docs) return sendProblemPage(reply, 'NO_EDITOR')
        if (!file) return sendProblemPage(reply, 'NOT_FOUND')
        const mode = request.query.mode === 'view' ? 'view' : 'edit'
        let config: EditorConfig
        try {
          config = await editorConfigFor(ctx, file, user, mode, await ctx.app.authorize(principal, 'read', file))
        } catch (error) {
          if (!isDomainError(error)) throw error
          return sendProblemPage(reply, 'NOT_SUPPORTED', [
            {
              href: `${apiBaseOf(ctx.config.publicUrl)}/files/file/${encodeURIComponent(file.id)}/download`,
              text: 'page.downloadIt',
            },
          ])
        }
        const nonce = randomBytes(16).toString('base64')
        const html = renderEditorPage({
          docsUrl: docs.url,
          apiBase: apiBaseOf(ctx.config.publicUrl),
          fileId: file.id,
          title: file.title,
          config,
          nonce,
        })
        return sendHtml(reply, 200, html, editorPageContentSecurityPolicy(docs.url, nonce))
      })
  }
}
