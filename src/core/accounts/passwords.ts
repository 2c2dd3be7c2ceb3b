import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * Password hashing with scrypt, Node's built-in memory-hard KDF (no native
 * dependency to build). Stored form: `scrypt$N$r$p$<salt b64>$<hash b64>`, so
 * the cost can be raised later without breaking old hashes.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 }
const KEY_LENGTH = 32
// N=2^15, r=8 needs 32 MiB; Node's default maxmem (32 MiB) is just too small.
const MAX_MEM = 64 * 1024 * 1024

/**
 * How many scrypt runs may be under way at once. scrypt runs on libuv's thread pool (4
 * threads by default), the same pool that serves file reads and writes: unbounded, a
 * burst of sign-ins would take every thread and stall downloads and WOPI GetFiles
 * behind it. Further runs wait their turn here, on the event loop, costing nothing.
 */
export const MAX_CONCURRENT_HASHES = 1

// Per process on purpose: the queue guards this process's own thread pool.
let running = 0
const waiting: (() => void)[] = []

/** Runs `task` when fewer than MAX_CONCURRENT_HASHES tasks are running, in arrival order. */
async function inTurn<T>(task: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) {
    await new Promise<void>((resolve) => waiting.push(resolve))
  } else {
    running++
  }
  try {
    return await task()
  } finally {
    // Hand the slot straight to the next waiter, or free it.
    const next = waiting.shift()
    if (next) next()
    else running--
  }
}

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return inTurn(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
          error ? reject(error) : resolve(key),
        )
      }),
  )
}

/** Hashes a password for storage. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, { ...COST, maxmem: MAX_MEM })
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$')
}

/** True when the password matches the stored hash (constant-time compare). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [, n, r, p, saltText, keyText] = parts
  const expected = Buffer.from(keyText ?? '', 'base64')
  const key = await derive(password, Buffer.from(saltText ?? '', 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEM,
  })
  return key.length === expected.length && timingSafeEqual(key, expected)
}

/** A random password for a generated admin account: 18 bytes, base64url. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url')
}

/** Rules for a password chosen by a person. Returns a reason when refused. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 8) return 'password must be at least 8 characters'
  if (password.length > 1024) return 'password must be at most 1024 characters'
  return undefined
}

/** Rules for a login name: 1–64 characters, letters, digits and . _ - @. */
export function userNameProblem(userName: string): string | undefined {
  if (!/^[\p{L}\p{N}._@-]{1,64}$/u.test(userName)) {
    return 'user name must be 1-64 letters, digits, or . _ - @'
  }
  return undefined
}
