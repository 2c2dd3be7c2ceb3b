import { strToU8, zipSync } from 'fflate'

/**
 * Blank Office Open XML packages for "new document". Each is the smallest
 * package that Word, Excel, PowerPoint, ONLYOFFICE Docs and LibreOffice open
 * as an ordinary empty document, built in memory from the XML below.
 */

interface Part {
  /** Package path without the leading slash. */
  path: string
  xml: string
  /** Override content type; omitted for .rels parts, which the Default covers. */
  contentType?: string
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'

const NS = {
  contentTypes: 'http://schemas.openxmlformats.org/package/2006/content-types',
  rels: 'http://schemas.openxmlformats.org/package/2006/relationships',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  w: 'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  s: 'http://schemas.openxmlformats.org/spreadsheetml/2006/main',
  p: 'http://schemas.openxmlformats.org/presentationml/2006/main',
  a: 'http://schemas.openxmlformats.org/drawingml/2006/main',
} as const

const CT = 'application/vnd.openxmlformats-officedocument.'
const REL = `${NS.r}/`
const CORE_PROPERTIES_REL = 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties'

// Fixed timestamp so the same build always yields the same bytes.
const ZIP_MTIME = new Date(Date.UTC(2024, 0, 1))

// Per process: the bytes depend only on the extension, so every instance builds the same.
const cache = new Map<string, Uint8Array>()

/**
 * A new, valid, empty document for 'docx', 'xlsx' or 'pptx' (case-insensitive),
 * as a fresh copy the caller may keep; undefined for any other extension, whose
 * new files start as 0 bytes.
 */
export function blankDocument(extension: string): Uint8Array | undefined {
  const ext = extension.toLowerCase()
  let bytes = cache.get(ext)
  if (bytes === undefined) {
    const parts = PACKAGES.get(ext)
    if (parts === undefined) return undefined
    bytes = buildPackage(parts())
    cache.set(ext, bytes)
  }
  return bytes.slice()
}

const PACKAGES = new Map<string, () => Part[]>([
  ['docx', wordParts],
  ['xlsx', spreadsheetParts],
  ['pptx', presentationParts],
])

function buildPackage(parts: Part[]): Uint8Array {
  const overrides = parts
    .filter((part) => part.contentType !== undefined)
    .map((part) => `<Override PartName="/${part.path}" ContentType="${part.contentType}"/>`)
  const contentTypes =
    `<Types xmlns="${NS.contentTypes}">` +
    '<Default Extension="rels"' +
    ' ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    `${overrides.join('')}</Types>`
  // [Content_Types].xml goes first: some readers sniff the package by its first entry.
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8(XML_HEAD + contentTypes),
  }
  for (const part of parts) files[part.path] = strToU8(XML_HEAD + part.xml)
  return zipSync(files, { level: 6, mtime: ZIP_MTIME })
}

/** A .rels part; each entry is [id, type, target], a bare type meaning an officeDocument one. */
function rels(path: string, entries: Array<[string, string, string]>): Part {
  const items = entries.map(([id, type, target]) => {
    const fullType = type.includes('/') ? type : REL + type
    return `<Relationship Id="${id}" Type="${fullType}" Target="${target}"/>`
  })
  return { path, xml: `<Relationships xmlns="${NS.rels}">${items.join('')}</Relationships>` }
}

/** Package relationships and document properties shared by all three formats. */
function commonParts(mainPart: string): Part[] {
  return [
    rels('_rels/.rels', [
      ['rId1', 'officeDocument', mainPart],
      ['rId2', CORE_PROPERTIES_REL, 'docProps/core.xml'],
      ['rId3', 'extended-properties', 'docProps/app.xml'],
    ]),
    {
      path: 'docProps/core.xml',
      contentType: 'application/vnd.openxmlformats-package.core-properties+xml',
      xml:
        '<cp:coreProperties' +
        ' xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"' +
        ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"' +
        ' xmlns:dcmitype="http://purl.org/dc/dcmitype/"' +
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/>',
    },
    {
      path: 'docProps/app.xml',
      contentType: `${CT}extended-properties+xml`,
      xml:
        '<Properties' +
        ' xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"' +
        ' xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">' +
        '<Application>Folio</Application><DocSecurity>0</DocSecurity></Properties>',
    },
  ]
}

// ---------------------------------------------------------------- docx

function wordParts(): Part[] {
  const w = `xmlns:w="${NS.w}"`
  // A4 (210 x 297 mm) in twentieths of a point, 2.54 cm margins.
  const section =
    '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/>' +
    '<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440"' +
    ' w:header="708" w:footer="708" w:gutter="0"/>' +
    '<w:cols w:space="708"/><w:docGrid w:linePitch="360"/></w:sectPr>'
  const hiddenStyle = (type: string, id: string, name: string, priority: number, extra = ''): string =>
    `<w:style w:type="${type}" w:default="1" w:styleId="${id}"><w:name w:val="${name}"/>` +
    `<w:uiPriority w:val="${priority}"/><w:semiHidden/><w:unhideWhenUsed/>${extra}</w:style>`
  const tableDefaults =
    '<w:tblPr><w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top w:w="0" w:type="dxa"/>' +
    '<w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/>' +
    '<w:right w:w="108" w:type="dxa"/>' +
    '</w:tblCellMar></w:tblPr>'

  return [
    ...commonParts('word/document.xml'),
    {
      path: 'word/document.xml',
      contentType: `${CT}wordprocessingml.document.main+xml`,
      xml: `<w:document ${w} xmlns:r="${NS.r}"><w:body><w:p/>${section}</w:body></w:document>`,
    },
    rels('word/_rels/document.xml.rels', [
      ['rId1', 'styles', 'styles.xml'],
      ['rId2', 'settings', 'settings.xml'],
    ]),
    {
      path: 'word/styles.xml',
      contentType: `${CT}wordprocessingml.styles+xml`,
      xml:
        `<w:styles ${w}><w:docDefaults><w:rPrDefault><w:rPr>` +
        '<w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="Calibri" w:cs="Calibri"/>' +
        '<w:sz w:val="22"/><w:szCs w:val="22"/></w:rPr></w:rPrDefault>' +
        '<w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="259" w:lineRule="auto"/></w:pPr>' +
        '</w:pPrDefault></w:docDefaults>' +
        '<w:style w:type="paragraph" w:default="1" w:styleId="Normal">' +
        '<w:name w:val="Normal"/><w:qFormat/></w:style>' +
        hiddenStyle('character', 'DefaultParagraphFont', 'Default Paragraph Font', 1) +
        hiddenStyle('table', 'TableNormal', 'Normal Table', 99, tableDefaults) +
        hiddenStyle('numbering', 'NoList', 'No List', 99) +
        '</w:styles>',
    },
    {
      path: 'word/settings.xml',
      contentType: `${CT}wordprocessingml.settings+xml`,
      // compatibilityMode 15 keeps Word out of "Compatibility Mode".
      xml:
        `<w:settings ${w}><w:zoom w:percent="100"/><w:defaultTabStop w:val="708"/>` +
        '<w:characterSpacingControl w:val="doNotCompress"/><w:compat>' +
        '<w:compatSetting w:name="compatibilityMode"' +
        ' w:uri="http://schemas.microsoft.com/office/word" w:val="15"/>' +
        '</w:compat></w:settings>',
    },
  ]
}

// ---------------------------------------------------------------- xlsx

function spreadsheetParts(): Part[] {
  const ns = `xmlns="${NS.s}" xmlns:r="${NS.r}"`
  return [
    ...commonParts('xl/workbook.xml'),
    {
      path: 'xl/workbook.xml',
      contentType: `${CT}spreadsheetml.sheet.main+xml`,
      xml:
        `<workbook ${ns}><bookViews><workbookView/></bookViews>` +
        '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    },
    rels('xl/_rels/workbook.xml.rels', [
      ['rId1', 'worksheet', 'worksheets/sheet1.xml'],
      ['rId2', 'styles', 'styles.xml'],
    ]),
    {
      path: 'xl/worksheets/sheet1.xml',
      contentType: `${CT}spreadsheetml.worksheet+xml`,
      xml:
        `<worksheet ${ns}>` +
        '<sheetViews><sheetView tabSelected="1" workbookViewId="0"/></sheetViews>' +
        '<sheetFormatPr defaultRowHeight="15"/><sheetData/>' +
        '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>' +
        '</worksheet>',
    },
    {
      path: 'xl/styles.xml',
      contentType: `${CT}spreadsheetml.styles+xml`,
      // Fill 0 and 1 must be 'none' and 'gray125': Excel reserves those two slots.
      xml:
        `<styleSheet xmlns="${NS.s}">` +
        '<fonts count="1">' +
        '<font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
        '<fills count="2"><fill><patternFill patternType="none"/></fill>' +
        '<fill><patternFill patternType="gray125"/></fill></fills>' +
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
        '<cellStyleXfs count="1">' +
        '<xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        '<cellXfs count="1">' +
        '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
        '<dxfs count="0"/><tableStyles count="0"/></styleSheet>',
    },
  ]
}

// ---------------------------------------------------------------- pptx

const PML_NS = `xmlns:a="${NS.a}" xmlns:r="${NS.r}" xmlns:p="${NS.p}"`

/** Latin/East Asian/complex-script font references for runs: '+mj' (headings) or '+mn' (body). */
function themeFonts(kind: '+mj' | '+mn'): string {
  return `<a:latin typeface="${kind}-lt"/><a:ea typeface="${kind}-ea"/>` + `<a:cs typeface="${kind}-cs"/>`
}

function textRun(size: number, kind: '+mj' | '+mn'): string {
  return (
    `<a:defRPr sz="${size}" kern="1200">` +
    `<a:solidFill><a:schemeClr val="tx1"/></a:solidFill>${themeFonts(kind)}</a:defRPr>`
  )
}

const PARA_ATTRS = 'defTabSz="914400" rtl="0" eaLnBrk="1" latinLnBrk="0" hangingPunct="1"'

/** Bulleted body levels 1..5, each indented half an inch further. */
function bodyLevels(): string {
  const sizes = [2800, 2400, 2000, 1800, 1800]
  return sizes
    .map((size, index) => {
      const level = index + 1
      const marL = 228600 + index * 457200
      return (
        `<a:lvl${level}pPr marL="${marL}" indent="-228600" algn="l" ${PARA_ATTRS}>` +
        '<a:lnSpc><a:spcPct val="90000"/></a:lnSpc><a:spcBef><a:spcPts val="1000"/></a:spcBef>' +
        `<a:buFont typeface="Arial"/><a:buChar char="\u2022"/>${textRun(size, '+mn')}` +
        `</a:lvl${level}pPr>`
      )
    })
    .join('')
}

/** A shape tree's mandatory group header. */
const TREE_HEAD =
  '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>' +
  '<p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/>' +
  '<a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>'

interface Placeholder {
  id: number
  name: string
  /** The p:ph attributes, e.g. 'type="title"'. */
  ph: string
  /** [x, y, cx, cy] in EMU; omitted on slides, which inherit the layout's. */
  box?: [number, number, number, number]
  bodyPr?: string
  lstStyle?: string
}

function placeholder(shape: Placeholder): string {
  const spPr =
    shape.box === undefined
      ? '<p:spPr/>'
      : `<p:spPr><a:xfrm><a:off x="${shape.box[0]}" y="${shape.box[1]}"/>` +
        `<a:ext cx="${shape.box[2]}" cy="${shape.box[3]}"/></a:xfrm></p:spPr>`
  const lstStyle = shape.lstStyle === undefined ? '<a:lstStyle/>' : `<a:lstStyle>${shape.lstStyle}</a:lstStyle>`
  return (
    `<p:sp><p:nvSpPr><p:cNvPr id="${shape.id}" name="${shape.name}"/>` +
    `<p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph ${shape.ph}/></p:nvPr></p:nvSpPr>` +
    `${spPr}<p:txBody>${shape.bodyPr ?? '<a:bodyPr/>'}${lstStyle}` +
    '<a:p><a:endParaRPr/></a:p></p:txBody></p:sp>'
  )
}

function presentationParts(): Part[] {
  const insets = 'vert="horz" lIns="91440" tIns="45720" rIns="91440" bIns="45720" rtlCol="0"'
  const master =
    `<p:sldMaster ${PML_NS}><p:cSld>` +
    '<p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg>' +
    `<p:spTree>${TREE_HEAD}` +
    placeholder({
      id: 2,
      name: 'Title Placeholder 1',
      ph: 'type="title"',
      box: [838200, 365125, 10515600, 1325563],
      bodyPr: `<a:bodyPr ${insets} anchor="ctr"><a:normAutofit/></a:bodyPr>`,
    }) +
    placeholder({
      id: 3,
      name: 'Text Placeholder 2',
      ph: 'type="body" idx="1"',
      box: [838200, 1825625, 10515600, 4351338],
      bodyPr: `<a:bodyPr ${insets}><a:normAutofit/></a:bodyPr>`,
    }) +
    '</p:spTree></p:cSld>' +
    '<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2"' +
    ' accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6"' +
    ' hlink="hlink" folHlink="folHlink"/>' +
    '<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst>' +
    '<p:txStyles>' +
    `<p:titleStyle><a:lvl1pPr algn="l" ${PARA_ATTRS}><a:lnSpc><a:spcPct val="90000"/></a:lnSpc>` +
    `<a:spcBef><a:spcPct val="0"/></a:spcBef><a:buNone/>${textRun(4400, '+mj')}` +
    '</a:lvl1pPr></p:titleStyle>' +
    `<p:bodyStyle>${bodyLevels()}</p:bodyStyle>` +
    `<p:otherStyle><a:defPPr><a:defRPr/></a:defPPr><a:lvl1pPr marL="0" algn="l" ${PARA_ATTRS}>` +
    `${textRun(1800, '+mn')}</a:lvl1pPr></p:otherStyle>` +
    '</p:txStyles></p:sldMaster>'

  const layout =
    `<p:sldLayout ${PML_NS} type="title" preserve="1">` +
    `<p:cSld name="Title Slide"><p:spTree>${TREE_HEAD}` +
    placeholder({
      id: 2,
      name: 'Title 1',
      ph: 'type="ctrTitle"',
      box: [1524000, 1122363, 9144000, 2387600],
      bodyPr: '<a:bodyPr anchor="b"/>',
      lstStyle: '<a:lvl1pPr algn="ctr"><a:defRPr sz="6000"/></a:lvl1pPr>',
    }) +
    placeholder({
      id: 3,
      name: 'Subtitle 2',
      ph: 'type="subTitle" idx="1"',
      box: [1524000, 3602038, 9144000, 1655762],
      lstStyle: '<a:lvl1pPr marL="0" indent="0" algn="ctr"><a:buNone/><a:defRPr sz="2400"/></a:lvl1pPr>',
    }) +
    '</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>'

  // The one slide shows the layout's empty title and subtitle, as a new deck does.
  const slide =
    `<p:sld ${PML_NS}><p:cSld><p:spTree>${TREE_HEAD}` +
    placeholder({ id: 2, name: 'Title 1', ph: 'type="ctrTitle"' }) +
    placeholder({ id: 3, name: 'Subtitle 2', ph: 'type="subTitle" idx="1"' }) +
    '</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>'

  const presentation =
    `<p:presentation ${PML_NS} saveSubsetFonts="1">` +
    '<p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>' +
    '<p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst>' +
    // 16:9 widescreen; notes pages are portrait 7.5 x 10 in.
    '<p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/>' +
    '<p:defaultTextStyle><a:defPPr><a:defRPr/></a:defPPr>' +
    `<a:lvl1pPr marL="0" algn="l" ${PARA_ATTRS}>` +
    `${textRun(1800, '+mn')}</a:lvl1pPr></p:defaultTextStyle></p:presentation>`

  return [
    ...commonParts('ppt/presentation.xml'),
    {
      path: 'ppt/presentation.xml',
      contentType: `${CT}presentationml.presentation.main+xml`,
      xml: presentation,
    },
    rels('ppt/_rels/presentation.xml.rels', [
      ['rId1', 'slideMaster', 'slideMasters/slideMaster1.xml'],
      ['rId2', 'slide', 'slides/slide1.xml'],
      ['rId3', 'presProps', 'presProps.xml'],
      ['rId4', 'viewProps', 'viewProps.xml'],
      ['rId5', 'theme', 'theme/theme1.xml'],
      ['rId6', 'tableStyles', 'tableStyles.xml'],
    ]),
    {
      path: 'ppt/slideMasters/slideMaster1.xml',
      contentType: `${CT}presentationml.slideMaster+xml`,
      xml: master,
    },
    rels('ppt/slideMasters/_rels/slideMaster1.xml.rels', [
      ['rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml'],
      ['rId2', 'theme', '../theme/theme1.xml'],
    ]),
    {
      path: 'ppt/slideLayouts/slideLayout1.xml',
      contentType: `${CT}presentationml.slideLayout+xml`,
      xml: layout,
    },
    rels('ppt/slideLayouts/_rels/slideLayout1.xml.rels', [['rId1', 'slideMaster', '../slideMasters/slideMaster1.xml']]),
    { path: 'ppt/slides/slide1.xml', contentType: `${CT}presentationml.slide+xml`, xml: slide },
    rels('ppt/slides/_rels/slide1.xml.rels', [['rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml']]),
    { path: 'ppt/theme/theme1.xml', contentType: `${CT}theme+xml`, xml: themeXml() },
    {
      path: 'ppt/presProps.xml',
      contentType: `${CT}presentationml.presProps+xml`,
      xml: `<p:presentationPr ${PML_NS}/>`,
    },
    {
      path: 'ppt/viewProps.xml',
      contentType: `${CT}presentationml.viewProps+xml`,
      xml: `<p:viewPr ${PML_NS}><p:gridSpacing cx="76200" cy="76200"/></p:viewPr>`,
    },
    {
      path: 'ppt/tableStyles.xml',
      contentType: `${CT}presentationml.tableStyles+xml`,
      // The default table style id names a built-in style, so no definition is needed here.
      xml: `<a:tblStyleLst xmlns:a="${NS.a}" def="{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}"/>`,
    },
  ]
}

/** A complete theme: colour, font and format schemes (each list needs at least three entries). */
function themeXml(): string {
  const srgb = (name: string, hex: string): string => `<a:${name}><a:srgbClr val="${hex}"/></a:${name}>`
  const colors =
    '<a:clrScheme name="Office">' +
    '<a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1>' +
    '<a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1>' +
    srgb('dk2', '44546A') +
    srgb('lt2', 'E7E6E6') +
    srgb('accent1', '4472C4') +
    srgb('accent2', 'ED7D31') +
    srgb('accent3', 'A5A5A5') +
    srgb('accent4', 'FFC000') +
    srgb('accent5', '5B9BD5') +
    srgb('accent6', '70AD47') +
    srgb('hlink', '0563C1') +
    srgb('folHlink', '954F72') +
    '</a:clrScheme>'
  const fontSet = (latin: string): string => `<a:latin typeface="${latin}"/><a:ea typeface=""/><a:cs typeface=""/>`
  const fonts =
    '<a:fontScheme name="Office">' +
    `<a:majorFont>${fontSet('Calibri Light')}</a:majorFont>` +
    `<a:minorFont>${fontSet('Calibri')}</a:minorFont>` +
    '</a:fontScheme>'
  const solid = (modifier = ''): string =>
    `<a:solidFill><a:schemeClr val="phClr">${modifier}</a:schemeClr></a:solidFill>`
  const line = (width: number): string =>
    `<a:ln w="${width}" cap="flat" cmpd="sng" algn="ctr">${solid()}` +
    '<a:prstDash val="solid"/><a:miter lim="800000"/></a:ln>'
  const fills = `${solid()}${solid('<a:tint val="60000"/>')}${solid('<a:shade val="80000"/>')}`
  const noEffect = '<a:effectStyle><a:effectLst/></a:effectStyle>'
  const formats =
    '<a:fmtScheme name="Office">' +
    `<a:fillStyleLst>${fills}</a:fillStyleLst>` +
    `<a:lnStyleLst>${line(6350)}${line(12700)}${line(19050)}</a:lnStyleLst>` +
    `<a:effectStyleLst>${noEffect.repeat(3)}</a:effectStyleLst>` +
    `<a:bgFillStyleLst>${fills}</a:bgFillStyleLst>` +
    '</a:fmtScheme>'
  return (
    `<a:theme xmlns:a="${NS.a}" name="Office Theme"><a:themeElements>${colors}${fonts}${formats}` +
    '</a:themeElements><a:objectDefaults/><a:extraClrSchemeLst/></a:theme>'
  )
}
