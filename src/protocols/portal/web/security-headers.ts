import type { FastifyReply } from 'fastify'

/**
 * Content-Security-Policy of the web UI: scripts, styles and everything else
 * only from Folio itself, no inline script or style, no plugins, no framing,
 * and Trusted Types enforced so no code path can assign HTML from a string.
 */
export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  // Previews: a PDF shown by the browser's own viewer in a frame of Folio's own address.
  "frame-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ')

/**
 * CSP of the WOPI host page: its own script and style, and one frame and one
 * form target, the WOPI client's origin.
 */
export function wopiHostContentSecurityPolicy(clientOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `frame-src ${clientOrigin}`,
    `form-action ${clientOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ')
}

/** Headers every web UI response carries (the CSP is set per response). */
export function setCommonSecurityHeaders(reply: FastifyReply): void {
  reply.header('X-Content-Type-Options', 'nosniff')
  reply.header('X-Frame-Options', 'DENY')
  reply.header('Referrer-Policy', 'same-origin')
  reply.header('Cross-Origin-Opener-Policy', 'same-origin')
  reply.header('Cross-Origin-Resource-Policy', 'same-origin')
}
