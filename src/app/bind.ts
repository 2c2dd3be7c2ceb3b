import type { AppContext } from './context.js'

/** A module function with its AppContext bound: `(ctx, ...args) => R` becomes `(...args) => R`. */
export type Bound<F> = F extends (ctx: AppContext, ...args: infer A) => infer R ? (...args: A) => R : never

/** Binds a use case to the context it runs over. */
export function bind<F extends (ctx: AppContext, ...args: never[]) => unknown>(ctx: AppContext, f: F): Bound<F>
export function bind(ctx: AppContext, f: (ctx: AppContext, ...args: unknown[]) => unknown) {
  return (...args: unknown[]) => f(ctx, ...args)
}
