import { randomBytes } from 'node:crypto'
import { strFromU8, strToU8, unzipSync, Zip, ZipDeflate, zipSync } from 'fflate'
import { blankDocument } from '../../src/core/documents/blank-documents.js'

/**
 * Test documents built in the test from Folio's own blank OOXML packages: the text goes
 * into the first paragraph, cell or slide, so a converted result can be checked for it.
 * No binary fixture comes from outside.
 */

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

function editPackage(extension: string, edit: (files: Record<string, Uint8Array>) => void): Buffer {
  const blank = blankDocument(extension)
  if (!blank) throw new Error(`no blank ${extension}`)
  const files = unzipSync(blank)
  edit(files)
  return Buffer.from(zipSync(files))
}

function replacePart(files: Record<string, Uint8Array>, path: string, change: (xml: string) => string): void {
  const part = files[path]
  if (!part) throw new Error(`no ${path} in the package`)
  const before = strFromU8(part)
  const after = change(before)
  if (after === before) throw new Error(`nothing changed in ${path}`)
  files[path] = strToU8(after)
}

/** A .docx whose body is these paragraphs. */
export function docxWithText(paragraphs: string[]): Buffer {
  const body = paragraphs
    .map((text) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`)
    .join('')
  return editPackage('docx', (files) =>
    replacePart(files, 'word/document.xml', (xml) => xml.replace('<w:body><w:p/>', `<w:body>${body}`)),
  )
}

/** A .xlsx whose first column holds these strings, one a row. */
export function xlsxWithText(cells: string[]): Buffer {
  const rows = cells
    .map((text, i) => `<row r="${i + 1}"><c r="A${i + 1}" t="inlineStr"><is><t>${escapeXml(text)}</t></is></c></row>`)
    .join('')
  return editPackage('xlsx', (files) =>
    replacePart(files, 'xl/worksheets/sheet1.xml', (xml) =>
      xml.replace('<sheetData/>', `<sheetData>${rows}</sheetData>`),
    ),
  )
}

/** A .pptx whose first slide's title and subtitle hold these texts. */
export function pptxWithText(title: string, subtitle: string): Buffer {
  return editPackage('pptx', (files) =>
    replacePart(files, 'ppt/slides/slide1.xml', (xml) => {
      const [before, ...rest] = xml.split('<a:p><a:endParaRPr/></a:p>')
      const texts = [title, subtitle]
      return rest.reduce(
        (out, part, i) =>
          `${out}<a:p><a:r><a:rPr lang="en-US"/><a:t>${escapeXml(texts[i] ?? '')}</a:t></a:r></a:p>${part}`,
        before ?? '',
      )
    }),
  )
}

/**
 * A .docx showing an image that is only linked, not embedded (TargetMode External): an
 * office that follows links fetches `imageUrl` while it opens or exports the document.
 */
export function docxLinkingImage(text: string, imageUrl: string): Buffer {
  return docxWithPicture(text, { link: imageUrl })
}

/**
 * A .docx showing one picture: linked (`link`, TargetMode External) or embedded in the
 * package (`embedded`, a PNG's bytes; the positive control of a test that a link is not
 * followed).
 */
export function docxWithPicture(text: string, picture: { link: string } | { embedded: Buffer }): Buffer {
  const blip = 'link' in picture ? '<a:blip r:link="rIdPicture"/>' : '<a:blip r:embed="rIdPicture"/>'
  const target =
    'link' in picture ? `Target="${escapeXml(picture.link)}" TargetMode="External"` : 'Target="media/picture.png"'
  const drawing =
    '<w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">' +
    '<wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="Linked picture"/>' +
    '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">' +
    '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
    '<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
    '<pic:nvPicPr><pic:cNvPr id="1" name="x.png"/><pic:cNvPicPr/></pic:nvPicPr>' +
    `<pic:blipFill>${blip}<a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    '<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm>' +
    '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic>' +
    '</wp:inline></w:drawing></w:r>'
  return editPackage('docx', (files) => {
    replacePart(files, 'word/document.xml', (xml) =>
      xml.replace('<w:body><w:p/>', `<w:body><w:p><w:r><w:t>${escapeXml(text)}</w:t></w:r>${drawing}</w:p>`),
    )
    replacePart(files, 'word/_rels/document.xml.rels', (xml) =>
      xml.replace(
        '</Relationships>',
        '<Relationship Id="rIdPicture" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" ' +
          `${target}/></Relationships>`,
      ),
    )
    if ('embedded' in picture) {
      files['word/media/picture.png'] = new Uint8Array(picture.embedded)
      replacePart(files, '[Content_Types].xml', (xml) =>
        xml.includes('Extension="png"')
          ? `${xml} `
          : xml.replace('<Default ', '<Default Extension="png" ContentType="image/png"/><Default '),
      )
    }
  })
}

/**
 * A .docx of a few hundred KiB whose word/document.xml inflates to `inflatedBytes`
 * (one paragraph of the same letter): a decompression bomb. Built in 1 MiB steps so the
 * test never holds the inflated text.
 */
export function docxBomb(inflatedBytes: number): Promise<Buffer> {
  const blank = blankDocument('docx')
  if (!blank) throw new Error('no blank docx')
  const files = unzipSync(blank)
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = []
    const zip = new Zip((error, data, final) => {
      if (error) return reject(error)
      chunks.push(data)
      if (final) resolve(Buffer.concat(chunks))
    })
    for (const [path, data] of Object.entries(files)) {
      if (path === 'word/document.xml') continue
      const entry = new ZipDeflate(path, { level: 6 })
      zip.add(entry)
      entry.push(data, true)
    }
    const entry = new ZipDeflate('word/document.xml', { level: 9 })
    zip.add(entry)
    const head =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>'
    entry.push(strToU8(head))
    const step = new Uint8Array(1024 * 1024).fill(0x41)
    for (let written = 0; written < inflatedBytes; written += step.length) entry.push(step)
    entry.push(strToU8('</w:t></w:r></w:p></w:body></w:document>'), true)
    zip.end()
  })
}

/** Bytes that are no document at all. */
export function randomDocumentBytes(size = 8 * 1024): Buffer {
  return randomBytes(size)
}

/** A real .docx cut off halfway: its zip directory is missing. */
export function truncatedDocx(): Buffer {
  const whole = docxWithText(['This document was cut in half.'])
  return whole.subarray(0, Math.floor(whole.length / 2))
}
