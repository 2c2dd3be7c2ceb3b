import { execFileSync } from 'node:child_process'
import { queryTestDatabase } from '../test/support/postgres.js'

/**
 * The PostgreSQL backends serving the processes `pids`, matched by the client ports of
 * their sockets (`ss`) against pg_stat_activity: their CPU is part of what a request on
 * PostgreSQL costs, and would be missing from the Folio process's own.
 */
export async function postgresBackendsOf(pids: number[]): Promise<number[]> {
  const ports = new Set<number>()
  for (const line of execFileSync('ss', ['-tnpH'], { encoding: 'utf8' }).split('\n')) {
    if (!line.includes(':5432 ') || !pids.some((pid) => line.includes(`pid=${pid},`))) continue
    const local = line.trim().split(/\s+/)[3] ?? ''
    ports.add(Number(local.slice(local.lastIndexOf(':') + 1)))
  }
  if (ports.size === 0) return []
  const rows = await queryTestDatabase<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])',
    [[...ports]],
  )
  return rows.map((row) => row.pid)
}
