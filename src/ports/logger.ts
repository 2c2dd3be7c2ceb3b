/** The slice of pino Folio uses, so app code does not depend on the logger library. */
export interface Logger {
  error(obj: object | string, msg?: string): void
  warn(obj: object | string, msg?: string): void
  info(obj: object | string, msg?: string): void
  debug(obj: object | string, msg?: string): void
}
