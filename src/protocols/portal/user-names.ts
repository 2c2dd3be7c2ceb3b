import type { AppContext } from '../../app/context.js'

/** Display names of the given user ids (deduplicated lookups; unknown ids map to ''). */
export async function displayNames(ctx: AppContext, ids: Iterable<string>): Promise<Map<string, string>> {
  const names = new Map<string, string>()
  for (const id of new Set(ids)) {
    const user = await ctx.store.users.findById(id)
    names.set(id, user?.displayName ?? '')
  }
  return names
}
