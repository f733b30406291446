/**
 * PDFs built in the test (no binary fixtures): pages of real text and pages that are only a JPEG picture, as a
 * scanner makes them, optionally with an outline (bookmarks). The picture is drawn with @napi-rs/canvas, or given
 * (a page rendered from a corpus PDF).
 */
import { createCanvas } from '@napi-rs/canvas';

export type PdfPage = { text: string[] } | { jpeg: Buffer; width: number; height: number };

/** A letter-page JPEG (200 dpi) of black lines of text on white, about 14 pt type. */
export function renderTextImage(lines: string[], width = 1700): { jpeg: Buffer; width: number; height: number } {
  const lineHeight = 56;
  const height = Math.round((width * 11) / 8.5);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  context.fillStyle = '#000000';
  context.font = '40px sans-serif';
  lines.forEach((line, i) => context.fillText(line, 120, 140 + i * lineHeight));
  return { jpeg: canvas.encodeSync('jpeg', 92), width, height };
}

/**
 * One bookmark of a PDF's outline. `page` (1-based) is where it leads, as a /Dest, or as a GoTo action when
 * `asAction`; without it the entry leads nowhere (a heading that only groups its children).
 */
export interface PdfBookmarkSpec {
  title: string;
  page?: number;
  asAction?: boolean;
  children?: PdfBookmarkSpec[];
}

/** A US-letter PDF: text pages in Helvetica, picture pages filled by their JPEG; `outline` becomes its bookmarks. */
export function buildPdf(pages: PdfPage[], options: { outline?: PdfBookmarkSpec[] } = {}): Buffer {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => {
    objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
    return objects.length;
  };
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const pageIds: number[] = [];
  const pagesId = 2 + pages.length * 3; // reserved below, after every page's objects
  for (const page of pages) {
    let content: string;
    let resources: string;
    if ('text' in page) {
      const escaped = page.text.map((line) => line.replace(/[\\()]/g, (c) => `\\${c}`));
      content = `BT /F1 12 Tf 72 720 Td 16 TL ${escaped.map((line) => `(${line}) '`).join(' ')} ET`;
      resources = `<< /Font << /F1 ${font} 0 R >> >>`;
      add('null');
    } else {
      const image = add(
        Buffer.concat([
          Buffer.from(
            `<< /Type /XObject /Subtype /Image /Width ${page.width} /Height ${page.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${page.jpeg.length} >>\nstream\n`,
            'latin1',
          ),
          page.jpeg,
          Buffer.from('\nendstream', 'latin1'),
        ]),
      );
      content = `q 612 0 0 792 0 0 cm /Im1 Do Q`;
      resources = `<< /XObject << /Im1 ${image} 0 R >> >>`;
    }
    const stream = add(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    pageIds.push(add(`<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 612 792] /Contents ${stream} 0 R /Resources ${resources} >>`));
  }
  while (objects.length < pagesId - 1) add('null');
  add(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`);
  const outlines = options.outline?.length ? addOutline(options.outline, pageIds, objects.length + 1, add) : undefined;
  const catalog = add(`<< /Type /Catalog /Pages ${pagesId} 0 R${outlines ? ` /Outlines ${outlines} 0 R /PageMode /UseOutlines` : ''} >>`);

  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(offset);
    const chunk = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    chunks.push(chunk);
    offset += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(chunks);
}

/**
 * The /Outlines tree, its objects numbered from `firstId` in the order they are added: the root, then every entry
 * depth first. Titles are UTF-16BE text strings, so any language's headings survive.
 */
function addOutline(entries: PdfBookmarkSpec[], pageIds: number[], firstId: number, add: (body: string) => number): number {
  const ids = new Map<PdfBookmarkSpec, number>();
  let next = firstId + 1;
  const number = (list: PdfBookmarkSpec[]) => list.forEach((entry) => (ids.set(entry, next++), number(entry.children ?? [])));
  number(entries);
  const ref = (entry: PdfBookmarkSpec | undefined) => (entry ? `${ids.get(entry)} 0 R` : undefined);
  const count = (list: PdfBookmarkSpec[]): number => list.reduce((sum, entry) => sum + 1 + count(entry.children ?? []), 0);
  const root = add(`<< /Type /Outlines /First ${ref(entries[0])} /Last ${ref(entries.at(-1))} /Count ${count(entries)} >>`);
  const write = (list: PdfBookmarkSpec[], parent: number) =>
    list.forEach((entry, index) => {
      const children = entry.children ?? [];
      const destination = entry.page === undefined ? undefined : `[${pageIds[entry.page - 1]} 0 R /XYZ null null null]`;
      const fields = [
        `/Title <FEFF${Buffer.from(entry.title, 'utf16le').swap16().toString('hex')}>`,
        `/Parent ${parent} 0 R`,
        list[index - 1] && `/Prev ${ref(list[index - 1])}`,
        list[index + 1] && `/Next ${ref(list[index + 1])}`,
        children.length > 0 && `/First ${ref(children[0])} /Last ${ref(children.at(-1))} /Count ${count(children)}`,
        destination && (entry.asAction ? `/A << /S /GoTo /D ${destination} >>` : `/Dest ${destination}`),
      ];
      const id = add(`<< ${fields.filter(Boolean).join(' ')} >>`);
      if (id !== ids.get(entry)) throw new Error('outline objects were numbered out of order');
      write(children, id);
    });
  write(entries, root);
  return root;
}
