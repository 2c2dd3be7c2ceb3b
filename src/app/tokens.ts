import { DomainError } from '../core/errors.js'
import {
  signToken,
  verifyToken,
  type TokenCheck,
  type TokenClaims,
  type TokenScope,
} from '../core/tokens/signed-token.js'

/** Tokens remembered; beyond this the oldest is forgotten (~0.5 KB each). */
const MAX_REMEMBERED_TOKENS = 2048

/**
 * Signed, stateless tokens (WOPI access tokens, Docs download and callback links), made and
 * checked with the instance's signing secret, which stays inside the application.
 */
export interface Tokens {
  /** Signs a claim set. */
  sign(claims: TokenClaims): string
  /** Checks a token's signature, scope and expiry at `now` (0 leaves expiry out). */
  verify(token: string, scope: TokenScope, now: number): TokenCheck
  /**
   * The claims of a genuine, unexpired WOPI access token; UNAUTHENTICATED otherwise. An
   * editor sends the same token on every call of a session, so a token whose HMAC verified
   * once is remembered by its exact text and only its expiry is checked again (the HMAC was
   * about a tenth of the CPU of a lock call). Only the signature's verdict is remembered:
   * revocation (the user's token generation) is checked by the caller against the user row
   * read on every call, so the memo never outlives a password change or a withdrawn right.
   */
  verifyWopi(token: string, now: number): TokenClaims
}

/**
 * The token service over one secret; its memo lives as long as the service. The memo is
 * per process and that is safe with several instances: every instance reads the same
 * secret from the shared store, a token verifies the same way on each, and nothing it
 * remembers can become wrong before the token's own expiry.
 */
export function createTokens(secret: Buffer): Tokens {
  const remembered = new Map<string, TokenClaims>()
  return {
    sign: (claims) => signToken(secret, claims),
    verify: (token, scope, now) => verifyToken(secret, token, scope, now),
    verifyWopi(token, now) {
      const known = remembered.get(token)
      if (known !== undefined && now < known.expiresAt) return known
      remembered.delete(token)
      const check = verifyToken(secret, token, 'wopi', now)
      if (!check.ok) throw new DomainError('UNAUTHENTICATED', `access token rejected: ${check.reason}`)
      if (remembered.size >= MAX_REMEMBERED_TOKENS) {
        const oldest = remembered.keys().next()
        if (oldest.done !== true) remembered.delete(oldest.value)
      }
      remembered.set(token, check.claims)
      return check.claims
    },
  }
}
