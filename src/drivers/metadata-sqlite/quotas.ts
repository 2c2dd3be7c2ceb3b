import type Database from 'better-sqlite3'
import type { QuotaRepository, StorageUsage } from '../../ports/metadata-store.js'

interface UsageRow {
  id: string
  bytes: number | null
  quota_limit: number | null
}

/** Quotas and used space in SQLite (used_space is kept by triggers, migration 017). */
export function createQuotaRepository(db: Database.Database): QuotaRepository {
  const many = db.prepare<[string], UsageRow>(`SELECT ids.value AS id, used_space.bytes, user_quotas.quota_limit
      FROM json_each(?) AS ids
      LEFT JOIN used_space ON used_space.owner_id = ids.value
      LEFT JOIN user_quotas ON user_quotas.user_id = ids.value`)
  const upsert = db.prepare<[number, string]>(`INSERT INTO user_quotas (user_id, quota_limit)
      SELECT id, ? FROM users WHERE id IN (SELECT value FROM json_each(?))
    ON CONFLICT (user_id) DO UPDATE SET quota_limit = excluded.quota_limit`)
  const remove = db.prepare<[string]>('DELETE FROM user_quotas WHERE user_id IN (SELECT value FROM json_each(?))')

  const getMany = async (userIds: readonly string[]): Promise<Map<string, StorageUsage>> => {
    const usage = new Map<string, StorageUsage>()
    for (const row of many.all(JSON.stringify([...new Set(userIds)]))) usage.set(row.id, toUsage(row))
    return usage
  }

  return {
    async get(userId) {
      return (await getMany([userId])).get(userId) ?? { usedSpace: 0, quotaLimit: undefined }
    },
    getMany,
    async setLimit(userIds, quotaLimit) {
      const ids = JSON.stringify([...new Set(userIds)])
      if (quotaLimit === undefined) remove.run(ids)
      else upsert.run(quotaLimit, ids)
    },
  }
}

function toUsage(row: UsageRow): StorageUsage {
  return { usedSpace: Math.max(0, row.bytes ?? 0), quotaLimit: row.quota_limit ?? undefined }
}
