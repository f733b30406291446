/**
 * Child process of the extract-ocr bench: renders page 1 of each named corpus PDF to a JPEG page image and writes
 * an image-only PDF of them (argv[2]). Run apart so pdf.js and the canvas it renders on do not count in the OCR
 * suite's memory figures.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { PDFParse } from 'pdf-parse';
import { corpusDir } from '../test/support/corpus';
import { buildPdf, type PdfPage } from '../test/support/image-pdf';

export const RENDER_WIDTH = 2000;

async function main(out: string, names: string[]): Promise<void> {
  const pages: PdfPage[] = [];
  for (const name of names) {
    const parser = new PDFParse({ data: new Uint8Array(readFileSync(path.join(corpusDir, name))) });
    try {
      const shot = await parser.getScreenshot({ partial: [1], desiredWidth: RENDER_WIDTH, imageDataUrl: false, imageBuffer: true });
      const image = await loadImage(Buffer.from(shot.pages[0]!.data));
      const canvas = createCanvas(image.width, image.height);
      const context = canvas.getContext('2d');
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, image.width, image.height);
      context.drawImage(image, 0, 0);
      pages.push({ jpeg: await canvas.encode('jpeg', 90), width: image.width, height: image.height });
    } finally {
      await parser.destroy();
    }
  }
  writeFileSync(out, buildPdf(pages));
}

if (process.argv[2]) await main(process.argv[2], process.argv.slice(3));
