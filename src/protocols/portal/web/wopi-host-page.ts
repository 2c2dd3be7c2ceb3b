/**
 * The WOPI host page: the HTML a browser loads to open a file in a WOPI
 * client. As Microsoft's "host page" documentation describes, the access
 * token travels as form fields (`access_token`, `access_token_ttl`) in a POST
 * to the action URL, targeted at an iframe, never in a query string, so it
 * stays out of logs, history and Referer headers.
 */

/** Path of the host page's own script (served by the web UI plugin). */
export const WOPI_HOST_SCRIPT_PATH = '/ui/wopi-host.js'
/** Path of the host page's stylesheet (served by the web UI plugin). */
export const WOPI_HOST_STYLE_PATH = '/ui/wopi-host.css'

/** Submits the form once the page is parsed (a separate file: the CSP allows no inline script). */
export const WOPI_HOST_SCRIPT = `document.getElementById('office_form').submit()\n`

/** Lets the editor frame fill the window. */
export const WOPI_HOST_STYLE = `html, body { margin: 0; padding: 0; height: 100%; }
body.host { overflow: hidden; }
#office_frame { display: block; width: 100%; height: 100%; border: 0; }
form { display: none; }
`

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

/**
 * Turns a discovery `urlsrc` into a URL to post to. Placeholders
 * (`<name=VALUE&>`) are filled where Folio knows the value (WOPI_SOURCE,
 * UI_LLCC, DC_LLCC) and dropped otherwise; a URL without any WOPISrc gets one
 * appended. A URL already resolved by the WOPI adapter passes through unchanged.
 */
export function resolveActionUrl(urlsrc: string, wopiSrc: string, language: string): string {
  const known: Record<string, string> = { WOPI_SOURCE: wopiSrc, UI_LLCC: language, DC_LLCC: language }
  let url = urlsrc.replace(/<([A-Za-z0-9_]+)=([A-Z_]+)(&?)>/g, (_match, name: string, value: string) => {
    const filled = known[value]
    return filled === undefined ? '' : `${name}=${encodeURIComponent(filled)}&`
  })
  url = url.replace(/[?&]+$/, '')
  if (!/[?&]wopisrc=/i.test(url)) {
    url += `${url.includes('?') ? '&' : '?'}WOPISrc=${encodeURIComponent(wopiSrc)}`
  }
  return url
}

/** What the host page shows and posts. */
export interface WopiHostPageInput {
  /** The file's name, shown as the page title. */
  title: string
  /** The action URL to post to (resolved). */
  actionUrl: string
  accessToken: string
  /** WOPI's access_token_ttl: expiry in milliseconds since the epoch. */
  accessTokenTtl: number
}

/** The host page: a hidden form posted into a full-window iframe by the host script. */
export function renderWopiHostPage(input: WopiHostPageInput): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(input.title)} - Folio</title>
<link rel="stylesheet" href="${WOPI_HOST_STYLE_PATH}">
</head>
<body class="host">
<form id="office_form" name="office_form" target="office_frame" action="${escapeHtml(input.actionUrl)}" method="post">
<input name="access_token" value="${escapeHtml(input.accessToken)}" type="hidden">
<input name="access_token_ttl" value="${escapeHtml(String(input.accessTokenTtl))}" type="hidden">
</form>
<iframe id="office_frame" name="office_frame" title="Editor: ${escapeHtml(input.title)}" allowfullscreen
 sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-top-navigation allow-popups-to-escape-sandbox allow-downloads allow-modals"
 allow="clipboard-read; clipboard-write; fullscreen"></iframe>
<script src="${WOPI_HOST_SCRIPT_PATH}"></script>
</body>
</html>
`
}
