// Types of bin/runtime.js (plain JavaScript: it runs before anything is compiled or loaded).
export type RuntimeChoice = { action: 'run' } | { action: 'reexec' } | { action: 'refuse'; message: string }
export function requiredMajor(engines: unknown): number
export function chooseRuntime(input: {
  version: string
  engines: unknown
  shipped: string | undefined
  reexeced: boolean
}): RuntimeChoice
export function shippedNode(): string | undefined
export function ensureRuntime(): Promise<boolean>
