import { resolve } from 'node:path'

export const MiB = 1024 * 1024
export const GiB = 1024 * MiB

/** What a bench run measures and how hard; quick mode is sized for CI (under two minutes). */
export interface BenchOptions {
  quick: boolean
  /** Where the report is written. */
  out: string
  /** Scenario numbers to run (all when empty). */
  only: number[]
  /** Folder for `node --cpu-prof` profiles of Folio, when profiling. */
  cpuProfDir: string | undefined
  /** Length of one measured load run (wrk), seconds. */
  loadSeconds: number
  /**
   * Rounds a comparison of lock-cycle and CheckFileInfo loads is split into, the servers
   * taken in turns (bench/rounds.ts); each round runs loadSeconds / loadRounds.
   */
  loadRounds: number
  /** Length of the warm-up before each load run, seconds. */
  warmupSeconds: number
  /**
   * The connection counts every load comparison is measured at (BENCHMARKS.md, "Method":
   * why both, and why the CPU per request is the figure of record); the lock cycles lock
   * as many files as the largest count.
   */
  connectionCounts: number[]
  /** Body sizes of scenario 3. */
  uploadSizes: number[]
  /** Size of the ONLYOFFICE save in scenario 4. */
  docsSaveSize: number
  /** Files stored for the large listing of scenario 5. */
  listingFiles: number
  /** Concurrent Lock requests of scenario 6. */
  contenders: number
  /** The command line as typed, for the report. */
  command: string
}

const USAGE = `usage: npm run bench -- [--quick] [--out FILE] [--only 1,3,5] [--cpu-prof DIR]`

/** Parses the command line of `npm run bench`; throws with the usage on a bad argument. */
export function parseOptions(argv: string[]): BenchOptions {
  let quick = false
  let out: string | undefined
  let only: number[] = []
  let cpuProfDir: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = (): string => {
      const next = argv[++i]
      if (next === undefined) throw new Error(`${arg} needs a value\n${USAGE}`)
      return next
    }
    if (arg === '--quick') quick = true
    else if (arg === '--out') out = value()
    else if (arg === '--only') only = value().split(',').map(Number)
    else if (arg === '--cpu-prof') cpuProfDir = resolve(value())
    else if (arg === '--help' || arg === '-h') throw new Error(USAGE)
    else throw new Error(`unknown argument ${arg}\n${USAGE}`)
  }
  if (only.some((n) => !Number.isInteger(n) || n < 1 || n > 10)) {
    throw new Error(`--only takes scenario numbers 1 to 10\n${USAGE}`)
  }
  const command = ['npm run bench', ...(argv.length > 0 ? ['--', ...argv] : [])].join(' ')
  return {
    quick,
    out: resolve(out ?? 'BENCHMARKS.md'),
    only,
    cpuProfDir,
    loadSeconds: quick ? 2 : 15,
    loadRounds: quick ? 1 : 3,
    warmupSeconds: quick ? 1 : 3,
    connectionCounts: [32, 100],
    uploadSizes: quick ? [MiB, 100 * MiB] : [MiB, 100 * MiB, GiB],
    docsSaveSize: 100 * MiB,
    listingFiles: quick ? 10_000 : 100_000,
    contenders: 1000,
    command,
  }
}
