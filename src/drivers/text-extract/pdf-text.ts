import type { Readable } from 'node:stream'
import { ExtractionStop, type Budget } from './budget.js'

/** Largest PDF read for its text: the reader needs the whole document in memory. */
export const MAX_PDF_BYTES = 128 * 1024 * 1024

/** pdfjs-dist's legacy build runs in Node without a browser or canvas; loaded on first use. */
async function loadPdfJs() {
  return import('pdfjs-dist/legacy/build/pdf.mjs')
}

/**
 * Reads the text of a PDF with pdfjs-dist (Mozilla's PDF reader): the text items of each
 * page in order, a line break where the page has one. No script in the document runs
 * (isEvalSupported off) and no font is loaded.
 */
export async function readPdfText(stream: Readable, size: number, budget: Budget): Promise<void> {
  if (size > MAX_PDF_BYTES) {
    stream.destroy()
    throw new ExtractionStop('PDF too large to read for text')
  }
  const chunks: Buffer[] = []
  for await (const chunk of stream) {
    budget.check()
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
  }
  const { getDocument } = await loadPdfJs()
  const task = getDocument({
    data: new Uint8Array(Buffer.concat(chunks)),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  })
  // The time limit also ends a reader stuck inside one page.
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ExtractionStop('took longer than the time limit')), budget.msLeft)
  })
  try {
    await Promise.race([readPages(task.promise, budget), timeout])
  } finally {
    clearTimeout(timer)
    await task.destroy()
  }
}

interface PdfPages {
  numPages: number
  getPage(n: number): Promise<{
    getTextContent(): Promise<{ items: ReadonlyArray<object> }>
    cleanup(): boolean
  }>
}

async function readPages(loading: Promise<PdfPages>, budget: Budget): Promise<void> {
  const pdf = await loading
  for (let n = 1; n <= pdf.numPages && !budget.done(); n++) {
    budget.check()
    const page = await pdf.getPage(n)
    const content = await page.getTextContent()
    for (const item of content.items) {
      if ('str' in item && typeof item.str === 'string') budget.sink.add(item.str)
      if ('hasEOL' in item && item.hasEOL === true) budget.sink.add('\n')
    }
    budget.sink.add('\n')
    page.cleanup()
  }
}
