/**
 * The WOPI client's action URLs (from its discovery document), as far as the application
 * needs them to launch a file. Implemented by the WOPI adapter's discovery cache.
 */

/** The `edit` and `view` action URLs offered for a file's extension (when any). */
export interface ActionUrls {
  edit?: string
  view?: string
}

/** Looks up action URLs; {} when no WOPI client is configured or it cannot be reached. */
export interface WopiActions {
  actionUrlsFor(extension: string, wopiSrc: string): Promise<ActionUrls>
}
