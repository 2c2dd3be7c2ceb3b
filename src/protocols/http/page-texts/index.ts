import { scaleBytes } from '../../../core/units/byte-scale.js'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { de } from './de.js'
import { en, type PageText, type PageTextKey, type PageTexts } from './en.js'
import { es } from './es.js'
import { fr } from './fr.js'

/**
 * The texts of the pages the server renders itself (a link's pages, the problem pages), in
 * the web app's languages. Why a catalog of its own and not web/src/i18n's: the server is
 * compiled with rootDir `src` (tsconfig.json) and bundled from dist/ (scripts/bundle.mjs),
 * so it cannot import modules under web/; these pages also need far fewer texts. The
 * languages are the same four (page-texts.test.ts checks keys and placeholders).
 */

export const PAGE_LOCALES = ['en', 'de', 'fr', 'es'] as const
export type PageLocale = (typeof PAGE_LOCALES)[number]

const CATALOGS: Record<PageLocale, PageTexts> = { en, de, fr, es }

/** The language a page speaks, and the tag its dates and numbers are written in. */
export interface PageLanguage {
  locale: PageLocale
  /** The guest's own tag for that language ('de-AT'), for Intl; else the language. */
  tag: string
}

const ENGLISH: PageLanguage = { locale: 'en', tag: 'en' }

function isPageLocale(value: string): value is PageLocale {
  return (PAGE_LOCALES as readonly string[]).includes(value)
}

/**
 * The best of Folio's languages for an Accept-Language header (RFC 9110 12.5.4): ranges by
 * q-value, highest first (the header's order among equals), q=0 meaning "not this"; a range
 * matches by its primary subtag; `*` or nothing we speak is English. A few lines instead of
 * a package: `negotiator` matches whole tags and would need the list of every regional tag.
 */
export function pageLanguage(header: string | undefined): PageLanguage {
  if (header === undefined) return ENGLISH
  const ranges = header
    .slice(0, 1000)
    .split(',')
    .map((part, order) => {
      const [range = '', ...params] = part.trim().split(';')
      const q = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined)
      return { range: range.trim(), q: q === undefined ? 1 : Number(q), order }
    })
    .filter((entry) => entry.range !== '' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order)
  for (const { range } of ranges) {
    if (range === '*') return ENGLISH
    const primary = range.split('-')[0]?.toLowerCase() ?? ''
    if (isPageLocale(primary)) return { locale: primary, tag: canonicalTag(range) ?? primary }
  }
  return ENGLISH
}

function canonicalTag(range: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(range)[0]
  } catch {
    return undefined
  }
}

/** A text of the catalog in `locale`, its `{name}` placeholders filled (`count` picks a plural). */
export function pageText(
  locale: PageLocale,
  key: PageTextKey,
  values: Readonly<Record<string, string | number>> = {},
): string {
  const message: PageText = CATALOGS[locale][key]
  const count = typeof values.count === 'number' ? values.count : 0
  const text =
    typeof message === 'string'
      ? message
      : new Intl.PluralRules(locale).select(count) === 'one'
        ? (message.one ?? message.other)
        : message.other
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    values[name] === undefined
      ? whole
      : typeof values[name] === 'number'
        ? numberText(locale, values[name])
        : values[name],
  )
}

function numberText(locale: PageLocale, value: number): string {
  return new Intl.NumberFormat(locale).format(value)
}

const SIZE_UNITS = ['kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const

/** A size as a guest of that language reads it: '940 bytes', '12.3 kB', '12,3 ko'; units of 1024. */
export function pageSize(language: PageLanguage, bytes: number): string {
  if (bytes < 1024) return pageText(language.locale, 'size.bytes', { count: bytes })
  const scaled = scaleBytes(bytes, SIZE_UNITS.length + 1)
  const value = scaled.value
  const unit = scaled.unit - 1
  const digits = value >= 100 ? 0 : 1
  return new Intl.NumberFormat(language.tag, {
    style: 'unit',
    unit: SIZE_UNITS[unit] ?? 'terabyte',
    unitDisplay: 'short',
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(value)
}

/**
 * A moment as the link pages show it: to the minute, in UTC (the server does not know the
 * guest's zone), the zone written out, date and time in the guest's language.
 */
export function pageDate(language: PageLanguage, ms: number): string {
  return new Intl.DateTimeFormat(language.tag, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(ms)
}

export type { PageTextKey } from './en.js'

/** The language of a page for this request, and the headers that say it was chosen so. */
export function languageOf(request: FastifyRequest): PageLanguage {
  return pageLanguage(request.headers['accept-language'])
}

/** Marks a reply as written in `language`, chosen by the request's Accept-Language. */
export function languageHeaders(reply: FastifyReply, language: PageLanguage): FastifyReply {
  const vary = reply.getHeader('Vary')
  const varied = typeof vary === 'string' && vary !== '' ? `${vary}, Accept-Language` : 'Accept-Language'
  return reply.header('Content-Language', language.locale).header('Vary', varied)
}
