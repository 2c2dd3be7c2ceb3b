import { config, type core } from 'zod/mini'
import { en } from 'zod/locales'

/**
 * Request bodies and queries are checked with `zod/mini`, not the classic `zod` entry: the
 * classic one carries every method on every schema and all its locales (about 600 KB of
 * bundle kept in memory, some 5 MiB resident; BENCHMARKS.md, scenario 7), the mini one
 * only what is used. Mini has no messages of its own, so English ones, as classic zod
 * writes them, are set here for every schema in the process.
 */
config(en())

/** `path: message` for each problem, joined by '; ' (the text of an INVALID_INPUT). */
export function describeIssues(issues: readonly core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ')
}
