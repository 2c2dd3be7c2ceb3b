/**
 * A message of a catalog: a text with `{name}` placeholders, or one text per plural
 * category of Intl.PluralRules (`other` always; `one`, `few`, `many` ... as the language
 * needs), chosen by the `count` placeholder.
 */
export type Message = string | PluralMessage

export interface PluralMessage {
  readonly zero?: string
  readonly one?: string
  readonly two?: string
  readonly few?: string
  readonly many?: string
  readonly other: string
}

/** The languages of the interface; English is the source the others follow. */
export const LOCALES = ['en', 'de', 'fr', 'es'] as const
export type Locale = (typeof LOCALES)[number]

/** Each language in its own words, for the language picker. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
}

/** `{name}` placeholders of a text, sorted, for comparing catalogs. */
export function placeholdersOf(message: Message): string[] {
  const texts = typeof message === 'string' ? [message] : Object.values(message)
  const names = new Set<string>()
  for (const text of texts) for (const match of text.matchAll(/\{(\w+)\}/g)) names.add(match[1] ?? '')
  return [...names].sort()
}

/** Fills `{name}` placeholders; a number is written as the locale writes numbers. */
export function fill(text: string, params: Readonly<Record<string, string | number>>, locale: string): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name]
    if (value === undefined) return whole
    return typeof value === 'number' ? value.toLocaleString(locale) : value
  })
}

/** The text of a message for `count` in `locale` (plural messages pick their category). */
export function pick(message: Message, locale: string, count: number | undefined): string {
  if (typeof message === 'string') return message
  const category = new Intl.PluralRules(locale).select(count ?? 0)
  // A `zero` text, where one is written, serves 0 even in languages whose rules lack that category.
  if (count === 0 && message.zero !== undefined) return message.zero
  return message[category] ?? message.other
}
