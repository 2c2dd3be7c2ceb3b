import type { QuotaRepository, StorageUsage } from '../../ports/metadata-store.js'
import type { Database } from './database.js'

interface UsageRow {
  id: string
  bytes: number | null
  quota_limit: number | null
}

const MANY = `SELECT ids.id, used_space.bytes, user_quotas.quota_limit
  FROM unnest($1::text[]) AS ids (id)
  LEFT JOIN used_space ON used_space.owner_id = ids.id
  LEFT JOIN user_quotas ON user_quotas.user_id = ids.id`

const UPSERT = `INSERT INTO user_quotas (user_id, quota_limit)
    SELECT id, $1 FROM users WHERE id = ANY($2::text[])
  ON CONFLICT (user_id) DO UPDATE SET quota_limit = excluded.quota_limit`

/** Quotas and used space in PostgreSQL (used_space is kept by triggers, migration 018). */
export function createQuotaRepository(db: Database): QuotaRepository {
  const getMany = async (userIds: readonly string[]): Promise<Map<string, StorageUsage>> => {
    const { rows } = await db.query<UsageRow>(MANY, [[...new Set(userIds)]])
    const usage = new Map<string, StorageUsage>()
    for (const row of rows) usage.set(row.id, toUsage(row))
    return usage
  }

  return {
    async get(userId) {
      return (await getMany([userId])).get(userId) ?? { usedSpace: 0, quotaLimit: undefined }
    },
    getMany,
    async setLimit(userIds, quotaLimit) {
      const ids = [...new Set(userIds)]
      if (quotaLimit === undefined) await db.query('DELETE FROM user_quotas WHERE user_id = ANY($1::text[])', [ids])
      else await db.query(UPSERT, [quotaLimit, ids])
    },
  }
}

function toUsage(row: UsageRow): StorageUsage {
  return {
    usedSpace: Math.max(0, Number(row.bytes ?? 0)),
    quotaLimit: row.quota_limit === null ? undefined : Number(row.quota_limit),
  }
}
