import type { ComponentChild } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { en, type Catalog, type MessageKey } from './en.js'
import { fill, LOCALES, pick, type Locale } from './messages.js'

// A catalog of our own rather than i18next, Lingui or FormatJS: the interface needs only
// `{name}` placeholders and plurals, which Intl.PluralRules gives; a typed object makes a
// missing key a type error without a build step or a message compiler, and costs no
// runtime library in the bundle. Only English is in the main bundle; the other
// catalogs are loaded when chosen.
export { LOCALES, LOCALE_NAMES, type Locale } from './messages.js'
export type { MessageKey } from './en.js'

const STORAGE_KEY = 'folio.locale'

const loaders: Record<Exclude<Locale, 'en'>, () => Promise<Catalog>> = {
  de: () => import('./de.js').then((module) => module.de),
  fr: () => import('./fr.js').then((module) => module.fr),
  es: () => import('./es.js').then((module) => module.es),
}

let locale: Locale = 'en'
// The browser's own tag for that language ('en-GB', 'de-AT') where it has one: dates and
// numbers are written as people there write them.
let intlTag: string = 'en'
let catalog: Catalog = en
const listeners = new Set<(next: Locale) => void>()

/**
 * The text of `key` in the interface's language, with `{name}` placeholders filled;
 * a plural message picks its form by `params.count`.
 */
export function t(key: MessageKey, params: Readonly<Record<string, string | number>> = {}): string {
  const message = catalog[key] ?? en[key]
  const count = typeof params.count === 'number' ? params.count : undefined
  return fill(pick(message, intlTag, count), params, intlTag)
}

/**
 * Like `t`, for a message with markup inside it: each `{name}` of `parts` becomes that
 * element (a file name in its own span, a `<code>` command), in the place the language
 * puts it.
 */
export function tParts(
  key: MessageKey,
  parts: Readonly<Record<string, ComponentChild>>,
  params: Readonly<Record<string, string | number>> = {},
): ComponentChild[] {
  return t(key, params)
    .split(/\{(\w+)\}/g)
    .map((piece, index) => (index % 2 === 1 ? (parts[piece] ?? `{${piece}}`) : piece))
}

/** The language the interface speaks now. */
export function currentLocale(): Locale {
  return locale
}

/** The tag Intl formats with: the browser's tag for the interface's language ('en-GB'), else the language. */
export function formatLocale(): string {
  return intlTag
}

function baseOf(tag: string): string {
  return tag.toLowerCase().split('-')[0] ?? ''
}

function tagFor(next: Locale, languages: readonly string[]): string {
  const tag = languages.find((candidate) => baseOf(candidate) === next)
  if (!tag) return next
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? next
  } catch {
    return next
  }
}

/** The first of the browser's languages Folio speaks ('de-AT' is German), else English. */
export function browserLocale(languages: readonly string[]): Locale {
  for (const tag of languages) {
    const base = baseOf(tag)
    const found = LOCALES.find((known) => known === base)
    if (found) return found
  }
  return 'en'
}

/** The language picked on the profile page in this browser, if any. */
export function chosenLocale(): Locale | undefined {
  try {
    const saved = localStorage.getItem(STORAGE_KEY)
    return LOCALES.find((known) => known === saved)
  } catch {
    return undefined
  }
}

// Counts switches, so a catalog that arrives after a later choice does not undo it.
let switches = 0

/** Switches the interface to `next` (loading its catalog) and sets `<html lang>`. */
export async function setLocale(next: Locale): Promise<void> {
  const mine = ++switches
  const nextCatalog = next === 'en' ? en : await loaders[next]()
  if (mine !== switches) return
  locale = next
  intlTag = tagFor(next, navigator.languages)
  catalog = nextCatalog
  document.documentElement.lang = next
  for (const listener of listeners) listener(next)
}

/**
 * Keeps the profile page's choice in this browser (`undefined`: follow the browser's
 * languages again) and switches to it.
 */
export async function chooseLocale(choice: Locale | undefined): Promise<void> {
  try {
    if (choice) localStorage.setItem(STORAGE_KEY, choice)
    else localStorage.removeItem(STORAGE_KEY)
  } catch {
    // Storage refused (private mode): the choice lasts for this page only.
  }
  await setLocale(choice ?? browserLocale(navigator.languages))
}

/**
 * The language the account keeps (`cultureName` of the signed-in profile, set on any
 * browser) becomes this browser's choice too, so the sign-in page speaks it next time;
 * '' follows the browser's languages. Undefined (no such field) changes nothing.
 */
export async function adoptAccountLocale(cultureName: string | undefined): Promise<void> {
  if (cultureName === undefined) return
  const choice = cultureName === '' ? undefined : browserLocale([cultureName, ...navigator.languages])
  const target = choice ?? browserLocale(navigator.languages)
  if (choice === chosenLocale() && target === locale) return
  await chooseLocale(choice)
}

/** The language at start: the one chosen here, else the browser's. */
export function startLocale(): Promise<void> {
  return setLocale(chosenLocale() ?? browserLocale(navigator.languages))
}

/** The interface's language; the component renders again when it changes. */
export function useLocale(): Locale {
  const [current, setCurrent] = useState(locale)
  useEffect(() => {
    listeners.add(setCurrent)
    return () => {
      listeners.delete(setCurrent)
    }
  }, [])
  return current
}

/**
 * A label ('Read only') inside a sentence: its first letter in lower case, except in
 * German, where nouns keep their capital.
 */
export function inSentence(label: string): string {
  if (locale === 'de') return label
  return label.charAt(0).toLocaleLowerCase(locale) + label.slice(1)
}
