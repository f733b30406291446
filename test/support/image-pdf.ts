/**
 * PDFs built in the test (no binary fixtures): pages of real text and pages that are only a JPEG picture, as a
 * scanner makes them. The picture is drawn with @napi-rs/canvas, or given (a page rendered from a corpus PDF).
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

/** A US-letter PDF: text pages in Helvetica, picture pages filled by their JPEG. */
export function buildPdf(pages: PdfPage[]): Buffer {
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
  const catalog = add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`);

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
