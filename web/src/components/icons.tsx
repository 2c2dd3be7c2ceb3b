import { KIND_LABELS, type FileKind } from '../format'
import { t } from '../i18n'

const KIND_COLORS: Record<FileKind, string> = {
  document: '#2b6cb0',
  spreadsheet: '#2f855a',
  presentation: '#c05621',
  pdf: '#c53030',
  text: '#4a5568',
  image: '#6b46c1',
  archive: '#975a16',
  other: '#718096',
}

/** White marks drawn on the page: lines, a grid, a slide, the letters PDF, plain text, a picture, a zipper. */
function KindMark(props: { kind: FileKind }) {
  const mark = { fill: 'none', stroke: '#fff', 'stroke-width': 1.6, 'stroke-linecap': 'round' } as const
  switch (props.kind) {
    case 'document':
      return <path d="M6 12h10M6 16h10M6 20h7" {...mark} />
    case 'spreadsheet':
      return <path d="M5.5 11.5h11v10h-11zM5.5 16.5h11M11 11.5v10" {...mark} stroke-width={1.3} />
    case 'presentation':
      return <path d="M5.5 11.5h11v7h-11zM11 18.5v3M8.5 21.5h5" {...mark} stroke-width={1.3} />
    case 'pdf':
      return (
        <text
          x="11"
          y="20"
          text-anchor="middle"
          font-size="6.5"
          font-family="system-ui, sans-serif"
          font-weight="700"
          fill="#fff"
        >
          PDF
        </text>
      )
    case 'text':
      // Plain lines with a ragged right edge: text without formatting.
      return <path d="M6 12h6M6 15h10M6 18h4M6 21h8" {...mark} stroke-width={1.3} />
    case 'image':
      return <path d="M5.5 21l4-5 3 3.5 2-2 2 3.5zM14.5 13.2h.01" {...mark} stroke-width={1.4} />
    case 'archive':
      return <path d="M11 9v2M11 13v2M11 17v2M9.5 20.5h3v2h-3z" {...mark} stroke-width={1.3} />
    default:
      return null
  }
}

/** A file-type icon; its accessible name is the kind ("Spreadsheet"). */
export function FileIcon(props: { kind: FileKind }) {
  return (
    <svg
      class="file-icon"
      viewBox="0 0 24 28"
      width="24"
      height="28"
      role="img"
      aria-label={t(KIND_LABELS[props.kind])}
    >
      <path d="M2 1h14l6 6v20H2z" fill={KIND_COLORS[props.kind]} />
      <path d="M16 1v6h6" fill="#fff" fill-opacity="0.45" />
      <KindMark kind={props.kind} />
    </svg>
  )
}

export type IconName =
  | 'upload'
  | 'plus'
  | 'pencil'
  | 'trash'
  | 'download'
  | 'history'
  | 'open'
  | 'lock'
  | 'user'
  | 'close'
  | 'key'
  | 'restore'
  | 'folder'
  | 'share'
  | 'move'
  | 'link'
  | 'copy'
  | 'keyboard'
  | 'convert'
  | 'storage'
  | 'more'

const PATHS: Record<IconName, string> = {
  upload: 'M12 16V4m0 0L7 9m5-5 5 5M4 16v4h16v-4',
  plus: 'M12 5v14M5 12h14',
  pencil: 'M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4',
  trash: 'M4 7h16M9 7V4h6v3m-8 0 1 13h8l1-13',
  download: 'M12 4v12m0 0-5-5m5 5 5-5M4 20h16',
  history: 'M3 12a9 9 0 1 0 3-6.7M3 4v5h5M12 7v5l3 3',
  open: 'M14 4h6v6M20 4l-9 9M18 14v6H4V6h6',
  lock: 'M6 11h12v9H6zM8 11V8a4 4 0 0 1 8 0v3',
  user: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0',
  close: 'M6 6l12 12M18 6 6 18',
  key: 'M14 10a4 4 0 1 0-3.5 4L9 15.5V18H6.5v2H4v-2.5l6.1-6.1M15.5 8.5h.01',
  restore: 'M4 12a8 8 0 1 0 2.3-5.6M4 4v4h4',
  folder: 'M3 6h6l2 2h10v11H3z',
  share:
    'M18 8a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM6 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM18 22a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM8.6 13.5l6.8 4M15.4 6.5l-6.8 4',
  move: 'M3 6h6l2 2h10v11H3zM9 13.5h7m-3-3 3 3-3 3',
  link: 'M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1',
  copy: 'M9 9h11v11H9zM5 15H4V4h11v1',
  keyboard: 'M3 6h18v12H3zM7 10h.01M11 10h.01M15 10h.01M8 14h8',
  convert: 'M4 9h13l-4-4M20 15H7l4 4',
  storage:
    'M4 6c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3zm0 0v12c0 1.7 3.6 3 8 3s8-1.3 8-3V6M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3',
  more: 'M4 12a1.5 1.5 0 1 0 3 0 1.5 1.5 0 1 0-3 0M10.5 12a1.5 1.5 0 1 0 3 0 1.5 1.5 0 1 0-3 0M17 12a1.5 1.5 0 1 0 3 0 1.5 1.5 0 1 0-3 0',
}

/** A folder's icon; its accessible name is "Folder". */
export function FolderIcon() {
  return (
    <svg class="file-icon" viewBox="0 0 24 28" width="24" height="28" role="img" aria-label={t('kind.folder')}>
      <path d="M1 7h8l2 2.5h12V24H1z" fill="#d69e2e" />
      <path d="M1 11h22" stroke="#fff" stroke-opacity="0.5" stroke-width="1.2" />
    </svg>
  )
}

/** A line icon; decorative (the control around it carries the name). */
export function Icon(props: { name: IconName }) {
  return (
    <svg class="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path
        d={PATHS[props.name]}
        fill="none"
        stroke="currentColor"
        stroke-width="2"
        stroke-linecap="round"
        stroke-linejoin="round"
      />
    </svg>
  )
}
