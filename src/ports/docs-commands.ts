/**
 * The ONLYOFFICE Docs command service, as far as the application needs it: telling open
 * editors that their document changed under them. Implemented over HTTP by the ONLYOFFICE
 * adapter and handed to the application by the composition root.
 */

/** Docs' answer to a command: `error` 0 means done. */
export interface DocsCommandReply {
  error: number
}

/** Commands sent to editors of an open document (identified by its document key). */
export interface DocsCommands {
  /** Tells open editors the document's new title. */
  meta(key: string, title: string): Promise<DocsCommandReply>
  /** Takes editing away from `users`. */
  drop(key: string, users?: string[]): Promise<DocsCommandReply>
}
