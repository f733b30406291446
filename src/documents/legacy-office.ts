/**
 * The binary Office formats of 1997–2003, still mailed around: .doc through word-extractor, .xls through SheetJS
 * (its last npm release, 0.18.5, reads BIFF well), .ppt by walking the PowerPoint record stream for its text atoms
 * (cfb opens the OLE container). All three are OLE compound files; an encrypted one fails as 'encrypted', and what
 * none of the libraries can read gets the sentence that saving it in the newer format works.
 */
import type { ExtractedDocument } from '../core/thread-file';
import { FileReadError } from '../core/thread-file';
import { DocumentBuilder } from './document-builder';
import { loadCfb, loadSheetJs, loadWordExtractor } from './libraries';
import { corruptError, encryptedError, noTextError, unsupportedError } from './read-errors';
import { TableBudget } from './table-budget';
import type { ExtractLimits } from './task';

const cfbMagic = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function checkOleContainer(bytes: Uint8Array, name: string, newer: string): void {
  if (!cfbMagic.every((b, i) => bytes[i] === b)) {
    throw unsupportedError(name, `not an old binary Office file despite its name; saving it as ${newer} would work`);
  }
  if (asBuffer(bytes).includes('EncryptedPackage', 0, 'utf16le')) throw encryptedError(name);
}

function cannotRead(name: string, newer: string, cause: unknown): FileReadError {
  return new FileReadError(
    'unsupported',
    `${name} is an old binary Office file that I could not read; save it as ${newer} and share it again.`,
    { cause },
  );
}

export async function readDoc(bytes: Uint8Array, name: string): Promise<ExtractedDocument> {
  checkOleContainer(bytes, name, '.docx');
  const WordExtractor = await loadWordExtractor();
  let document;
  try {
    document = await new WordExtractor().extract(asBuffer(bytes));
  } catch (error) {
    if (/encrypt|password/i.test(String((error as Error)?.message))) throw encryptedError(name);
    throw cannotRead(name, '.docx', error);
  }
  const builder = new DocumentBuilder().startSegment('section', 1, '§ (start)');
  builder.append(tidy(document.getBody()));
  const parts: Array<[string, string]> = [
    ['Footnotes', document.getFootnotes()],
    ['Endnotes', document.getEndnotes()],
    ['Comments', document.getAnnotations()],
    ['Text boxes', document.getTextboxes({ includeHeadersAndFooters: false, includeBody: true })],
  ];
  let number = 1;
  for (const [title, text] of parts) {
    const body = tidy(text);
    if (!body) continue;
    builder.endBlock().startSegment('section', ++number, `§ ${title}`).appendHeading(`## ${title}\n\n`, title, 1).append(body);
  }
  builder.append('\n');
  return builder.build();
}

export async function readXls(bytes: Uint8Array, name: string, limits: ExtractLimits): Promise<ExtractedDocument> {
  checkOleContainer(bytes, name, '.xlsx');
  const XLSX = await loadSheetJs();
  let workbook;
  try {
    workbook = XLSX.read(asBuffer(bytes), { type: 'buffer', dense: true, cellFormula: false, cellHTML: false, cellStyles: false });
  } catch (error) {
    if (/password|encrypt/i.test(String((error as Error)?.message))) throw encryptedError(name);
    throw cannotRead(name, '.xlsx', error);
  }
  const builder = new DocumentBuilder();
  const budget = new TableBudget(limits);
  let rowsWithValues = 0;
  workbook.SheetNames.forEach((sheetName, index) => {
    const sheet = workbook.Sheets[sheetName]!;
    const hidden = workbook.Workbook?.Sheets?.[index]?.Hidden ? ' (hidden)' : '';
    builder.endBlock().startSegment('sheet', index + 1, `Sheet '${sheetName}'`);
    builder.appendHeading(`## Sheet: ${sheetName}${hidden}`, sheetName, 1);
    // Formatted values, as Excel shows them (w), not raw serials; blank rows left out like the XLSX reader does.
    const all = XLSX.utils.sheet_to_json<string[]>(sheet, { header: 1, raw: false, blankrows: false, defval: '' });
    const rows: string[][] = [];
    for (const row of all) {
      if (!budget.admits(rows.length)) break;
      const cells = row.map((cell) => String(cell ?? ''));
      rows.push(cells);
      budget.spend(cells);
    }
    budget.appendTable(builder, rows, all.length, `'${sheetName}'`);
    rowsWithValues += all.length;
  });
  if (rowsWithValues === 0) throw noTextError(name);
  builder.append('\n');
  return builder.build(workbook.SheetNames.length);
}

// PowerPoint binary records ([MS-PPT]): an 8-byte header, then a body; version 0xF marks a container of records.
const RT = {
  slideListWithText: 0x0ff0,
  slidePersistAtom: 0x03f3,
  slide: 0x03ee,
  notes: 0x03f0,
  mainMaster: 0x03f8,
  textCharsAtom: 0x0fa0,
  textBytesAtom: 0x0fa8,
} as const;

interface PptSlide {
  texts: string[];
  notes: string[];
}

export async function readPpt(bytes: Uint8Array, name: string): Promise<ExtractedDocument> {
  checkOleContainer(bytes, name, '.pptx');
  const CFB = await loadCfb();
  let stream: Buffer;
  try {
    const container = CFB.read(asBuffer(bytes), { type: 'buffer' });
    if (CFB.find(container, 'EncryptedSummary')) throw encryptedError(name);
    const entry = CFB.find(container, 'PowerPoint Document');
    if (!entry?.content) throw cannotRead(name, '.pptx', new Error('no "PowerPoint Document" stream'));
    stream = Buffer.from(entry.content as Uint8Array);
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    throw corruptError(name, 'its Office container is unreadable', error);
  }
  const slides = readPptRecords(stream);
  const builder = new DocumentBuilder();
  let withText = 0;
  slides.forEach((slide, index) => {
    const number = index + 1;
    const [title, ...body] = slide.texts;
    builder.endBlock().startSegment('slide', number, `slide ${number}`);
    builder.appendHeading(`## Slide ${number}${title ? `: ${title}` : ''}`, title || `Slide ${number}`, 1);
    for (const block of body) builder.appendBlock(block);
    if (slide.notes.length) builder.appendBlock(`Notes: ${slide.notes.join('\n')}`);
    if (slide.texts.length || slide.notes.length) withText++;
  });
  if (withText === 0) throw noTextError(name);
  builder.append('\n');
  return builder.build(slides.length);
}

/**
 * Slide text lives in one of two places: the SlideListWithText (PowerPoint 97–2003 writes it there, one
 * SlidePersistAtom per slide followed by its text atoms), or the text boxes of each Slide container (newer
 * PowerPoint saving as .ppt). The first is used when it has text; master slides (placeholder prompts) never.
 */
function readPptRecords(stream: Buffer): PptSlide[] {
  const listed: PptSlide[] = [];
  const drawn: PptSlide[] = [];
  let drawnNotes: string[] = [];
  let records = 0;
  const walk = (start: number, end: number, path: number[]): void => {
    let pos = start;
    while (pos + 8 <= end) {
      if (++records > 2_000_000) return; // a malformed stream must not loop for ever
      const versionAndInstance = stream.readUInt16LE(pos);
      const type = stream.readUInt16LE(pos + 2);
      const length = stream.readUInt32LE(pos + 4);
      const body = pos + 8;
      const stop = Math.min(end, body + length);
      const instance = versionAndInstance >> 4;
      if ((versionAndInstance & 0xf) === 0xf) {
        if (type === RT.mainMaster) {
          pos = body + length;
          continue;
        }
        if (type === RT.slide) drawn.push({ texts: [], notes: [] });
        if (type === RT.notes) drawnNotes = [];
        walk(body, stop, [...path, type === RT.slideListWithText ? type | (instance << 16) : type]);
        if (type === RT.notes && drawnNotes.length && drawn.length) drawn[drawn.length - 1]!.notes.push(...drawnNotes);
      } else {
        const inSlideList = path.includes(RT.slideListWithText); // instance 0: the slides (1 masters, 2 notes)
        if (inSlideList && type === RT.slidePersistAtom) listed.push({ texts: [], notes: [] });
        if (type === RT.textCharsAtom || type === RT.textBytesAtom) {
          const raw = stream.subarray(body, stop);
          const text = (type === RT.textCharsAtom ? raw.toString('utf16le') : raw.toString('latin1'))
            .replace(/[\r\v]/g, '\n')
            .trim();
          if (text) {
            if (inSlideList) listed.at(-1)?.texts.push(text);
            else if (path.includes(RT.notes)) drawnNotes.push(text);
            else if (path.includes(RT.slide)) drawn.at(-1)?.texts.push(text);
          }
        }
      }
      pos = body + length;
    }
  };
  walk(0, stream.length, []);
  return listed.some((slide) => slide.texts.length) ? listed : drawn;
}

function tidy(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
