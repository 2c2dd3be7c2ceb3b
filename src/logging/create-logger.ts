import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino'
import { redactText, redactUrl, redactValue, REDACTED } from './redact.js'

/** What the log looks like. */
export interface LoggerOptions {
  level: string
  /** json: one object per line; pretty: pino-pretty, loaded only when chosen. */
  format: 'json' | 'pretty'
  /** Where json lines go (standard output when omitted); tests capture the log with it. */
  destination?: DestinationStream
}

/** Header names whose values are credentials, in every log object that carries headers. */
const SECRET_HEADERS = [
  'authorization',
  'authorizationjwt',
  'cookie',
  'set-cookie',
  'x-wopi-proof',
  'x-wopi-proofold',
  'x-folio-metrics-token',
]

/** Fields whose value is a credential wherever they appear (one or two levels down). */
const SECRET_FIELDS = ['password', 'token', 'access_token', 'accessToken', 'secret', 'jwtSecret', 'secretAccessKey']

const REDACT_PATHS = [
  ...SECRET_HEADERS.flatMap((name) => [`req.headers["${name}"]`, `headers["${name}"]`, `*.headers["${name}"]`]),
  ...SECRET_FIELDS.flatMap((name) => [name, `*.${name}`]),
]

interface RequestLike {
  method?: string
  url?: string
  ip?: string
  routeOptions?: { url?: string }
}

/**
 * A pino logger that never writes a credential: headers that carry one and fields named
 * like one are [redacted]; request URLs lose the values of access_token, token and doc;
 * every other string of a line (messages, errors, nested values) is scrubbed of such
 * parameters, Bearer credentials and JSON Web Tokens as well.
 */
export function buildLogger(options: LoggerOptions): PinoLogger {
  const settings = {
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: {
      req: (req: RequestLike) => ({
        method: req.method,
        url: req.url === undefined ? undefined : redactUrl(req.url),
        route: req.routeOptions?.url,
        remoteAddress: req.ip,
      }),
      err: (err: unknown) => redactValue(err instanceof Error ? pino.stdSerializers.err(err) : err),
    },
    formatters: {
      log: (object: Record<string, unknown>) => {
        const scrubbed = redactValue(object)
        return isRecord(scrubbed) ? scrubbed : object
      },
    },
    hooks: {
      // Message strings (and printf-style arguments) are scrubbed like the fields.
      logMethod(this: PinoLogger, args: unknown[], method: (...rest: unknown[]) => void) {
        method.apply(
          this,
          args.map((arg) => (typeof arg === 'string' ? redactText(arg) : arg)),
        )
      },
    },
  }
  if (options.format === 'pretty' && options.destination === undefined) {
    // pino-pretty runs in pino's transport worker and is loaded only for this format.
    return pino({ ...settings, transport: { target: 'pino-pretty', options: { colorize: true } } })
  }
  return options.destination ? pino(settings, options.destination) : pino(settings)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
