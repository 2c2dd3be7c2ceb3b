import type { FileRecord, FolderRecord } from '../core/entities.js'

/** The words of one version of a file, as the index keeps them. */
export interface IndexedText {
  fileId: string
  /** The version the text was read from. */
  version: number
  /** The text as read (for snippets), at most the configured number of characters. */
  text: string
  /** The folded words of the text, separated by spaces (src/core/search/terms.ts). */
  terms: string
  /** The folded words of the file's title at that time, matched before the text's. */
  titleTerms: string
}

/**
 * Where a search looks: the folders named and everything under them, and the files named.
 * The caller decides these from the access policy; the store only follows the tree.
 */
export interface SearchScope {
  folderIds: readonly string[]
  fileIds: readonly string[]
}

export interface SearchQuery {
  scope: SearchScope
  /**
   * Lower-cased pieces that must each occur in a folder's title (any case), and in a file's
   * title when `scanFileTitles`; [] matches no name.
   */
  namePieces: readonly string[]
  /**
   * Match file titles by namePieces too (a scan of the scope's files: for a folder's
   * filter); otherwise files are found by their indexed words only.
   */
  scanFileTitles: boolean
  /**
   * Folded words the indexed title or text must hold, the last one as a prefix ([] matches
   * nothing); undefined: no indexed search. Title matches rank first.
   */
  contentTerms?: readonly string[]
  /** Most items of each kind (folders by name, files by name, files by content) returned. */
  limit: number
}

/** A file found, and how. */
export interface FileHit {
  file: FileRecord
  /** Its title matched (the pieces scanned, or the indexed words). */
  byName: boolean
  /** Its content matched; higher ranks better (0 when only the name matched). */
  rank: number
  /** The start of its indexed text (for a snippet) when the content matched. */
  textStart?: string
}

export interface SearchResults {
  folders: FolderRecord[]
  /** Name matches first, then the best content matches; each file once. */
  files: FileHit[]
}

/** How big the index is. */
export interface SearchIndexStats {
  documents: number
  /** Characters of text kept for snippets. */
  textChars: number
}

/**
 * The search index: the words of the current version of each file, beside the metadata.
 * A file's words go with the file when it is deleted for good.
 */
export interface SearchIndexRepository {
  /**
   * Stores the words of a version, replacing the file's earlier ones; a version older than
   * the one stored is ignored (a slow reader of an old version never undoes a newer one).
   * Nothing is stored when the file no longer exists.
   */
  put(entry: IndexedText): Promise<void>
  /** The version whose words are stored for the file, if any. */
  indexedVersion(fileId: string): Promise<number | undefined>
  /** Drops the file's words. */
  remove(fileId: string): Promise<void>
  /** Files and folders in the scope matching the query (see SearchQuery). */
  search(query: SearchQuery): Promise<SearchResults>
  /** Ids of every file, in batches after `afterId` (for reindexing all). */
  fileIds(afterId: string, limit: number): Promise<string[]>
  /** Ids of files with no stored words or words of an older version, in batches. */
  staleFileIds(afterId: string, limit: number): Promise<string[]>
  stats(): Promise<SearchIndexStats>
}
