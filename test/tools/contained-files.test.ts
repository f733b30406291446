/**
 * Files inside files, opened by the same tools as any file: a .zip's entries ("F1/logs/app.log", and one level into
 * a zip inside it), an .eml's attachment, a DOCX's embedded pictures. Fixtures are built here with fflate and by hand.
 */
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractFileTool } from '../../src/tools/extract-file';
import { loadFileTool } from '../../src/tools/load-file';
import { peekFileTool } from '../../src/tools/peek-file';
import { searchFileTool } from '../../src/tools/search-file';
import type { ToolContext } from '../../src/tools/tool';
import { buildPdf } from '../support/image-pdf';
import { docxOfPictures, paperWithFigures } from '../support/fixtures';
import { openThreadWithFiles, type ThreadWithFiles } from '../support/thread-with-files';

const log = (service: string, event: string) =>
  Array.from({ length: 40 }, (_, i) => `2026-11-24T10:${String(i).padStart(2, '0')}:00Z ${service} ${i === 17 ? event : 'heartbeat ok'}`).join('\n');

const logsZip = Buffer.from(
  zipSync({
    'logs/app.log': strToU8(log('app', 'payment gateway returned 502')),
    'logs/db.log': strToU8(log('db', 'deadlock detected on table invoices')),
    'logs/worker.log': strToU8(log('worker', 'retry queue drained')),
    'nested/inner.zip': zipSync({ 'deep.log': strToU8('the nested entry is readable') }),
  }),
);

const pdf = buildPdf([{ text: ['Invoice 2026-117', 'Total due: 4,800 euros by 1 December.'] }]);
const email = [
  'From: Dana Ops <dana@example.com>',
  'To: Team <team@example.com>',
  'Subject: Fwd: November invoice',
  'Date: Tue, 24 Nov 2026 09:30:00 +0000',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Please check the attached invoice before Friday.',
  '--b1',
  'Content-Type: application/pdf; name="invoice.pdf"',
  'Content-Disposition: attachment; filename="invoice.pdf"',
  'Content-Transfer-Encoding: base64',
  '',
  ...pdf.toString('base64').match(/.{1,76}/g)!,
  '--b1--',
  '',
].join('\r\n');


describe('files inside archives, emails and documents', { timeout: 120_000 }, () => {
  let thread: ThreadWithFiles;
  const shown: string[] = [];
  const shownImages: Array<{ fileId: string; dataUrl: string }> = [];
  beforeAll(async () => {
    thread = await openThreadWithFiles([
      { name: 'logs.zip', mimetype: 'application/zip', bytes: logsZip },
      { name: 'invoice.eml', mimetype: 'message/rfc822', bytes: Buffer.from(email) },
      { name: 'bomb.zip', mimetype: 'application/zip', bytes: Buffer.from(zipSync({ 'zeros.bin': new Uint8Array(30 * 1024 * 1024) }, { level: 9 })) },
      { name: 'site-plans.docx', mimetype: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes: docxOfPictures() },
      { name: 'paper.pdf', mimetype: 'application/pdf', bytes: paperWithFigures() },
    ]);
  });
  afterAll(async () => {
    await thread?.close();
  });

  const context: ToolContext = {
    get files() {
      return thread.files;
    },
    skills: { read: () => Promise.reject(new Error('no skills here')) },
    signal: new AbortController().signal,
    tokensLeft: () => 100_000,
    showImage: (image) => {
      shown.push(image.fileId);
      shownImages.push(image);
    },
    recordActivity: () => {},
  };

  it('lists a zip of three logs as virtual files that peek_file and search_file read', async () => {
    const listing = await extractFileTool.execute({ id: 'F1' }, context);
    expect(listing).toContain('- logs/app.log (');
    const ids = thread.files.list().map((file) => file.id).filter((id) => id.startsWith('F1/'));
    expect(ids).toEqual(['F1/logs/app.log', 'F1/logs/db.log', 'F1/logs/worker.log', 'F1/nested/inner.zip', 'F1/nested/inner.zip/deep.log']);

    const peeked = await peekFileTool.execute({ id: 'F1/logs/app.log', start: 0, stop: 4000 }, context);
    expect(peeked).toContain('payment gateway returned 502');
    const found = await searchFileTool.execute({ id: 'F1/logs/db.log', query: 'deadlock on invoices' }, context);
    expect(found).toMatch(/lines 1–23[\s\S]*«deadlock» detected «on» table «invoices»/);
    const worker = await peekFileTool.execute({ id: 'F1/logs/worker.log', start: 0, stop: 4000 }, context);
    expect(worker).toContain('retry queue drained');
    // One level into a zip inside the zip.
    expect(await peekFileTool.execute({ id: 'F1/nested/inner.zip/deep.log', start: 0, stop: 100 }, context)).toContain('the nested entry is readable');
  });

  it('forgets the files inside an archive with the archive when Slack deletes it', async () => {
    const zip = thread.files.get('F1');
    await thread.files.readText('F1/logs/app.log');
    const { forgetSlackFile } = await import('../../src/store/retention');
    const { slackFileContents, threadFiles } = await import('../../src/store/schema');
    const { like } = await import('drizzle-orm');
    const forgotten = await forgetSlackFile(thread.handle.db, zip.slackFileId!);
    expect(forgotten.threadFiles).toBeGreaterThanOrEqual(6); // F1 and its five entries
    expect(await thread.handle.db.select().from(threadFiles).where(like(threadFiles.fileId, 'F1/%'))).toEqual([]);
    expect(await thread.handle.db.select().from(slackFileContents).where(like(slackFileContents.slackFileId, `${zip.slackFileId}::%`))).toEqual([]);
  });

  it('reads an email as headers and body, its PDF attachment as a virtual file', async () => {
    const document = await thread.files.readText('F2');
    expect(document.text).toContain('# Fwd: November invoice');
    expect(document.text).toContain('From: Dana Ops <dana@example.com>');
    expect(document.text).toContain('Please check the attached invoice before Friday.');
    expect(thread.files.get('F2/invoice.pdf')).toMatchObject({ mimeType: 'application/pdf', fileType: 'pdf' });
    const attachment = await peekFileTool.execute({ id: 'F2/invoice.pdf', start: 0, stop: 2000 }, context);
    expect(attachment).toContain('Total due: 4,800 euros by 1 December.');
  });

  it('refuses a zip bomb with the size sentence, without inflating it', async () => {
    await expect(thread.files.readText('F3')).rejects.toMatchObject({ code: 'too_large', message: expect.stringMatching(/^bomb\.zip unpacks to too much data \(it expands \d+× to 30 MB\)/) });
  });

  it('lists the pictures of a DOCX as image files that load_file shows', async () => {
    await thread.files.readText('F4');
    const pictures = thread.files.list().filter((file) => file.id.startsWith('F4/word/media/'));
    expect(pictures.length).toBeGreaterThan(0);
    const picture = pictures.find((file) => /\.(png|jpe?g)$/i.test(file.id))!;
    const result = await loadFileTool.execute({ id: picture.id }, context);
    expect(result).toMatch(/^Image F4\/word\/media\/.+ is attached to the next message/);
    expect(shown).toContain(picture.id);
  });

  it('lists the figures on a PDF page, when its picture list is opened, as image files that load_file shows as a PNG', async () => {
    // The generated paper's p. 3 paints three figures; the third is 800×600 px (see test/documents/pdf-images.test.ts).
    const extracted = await extractFileTool.execute({ id: 'F5' }, context);
    // Reading the text lists no picture: the PDF offers the list as an entry, read when the model asks.
    expect(extracted).toContain('pictures.txt lists them when opened');
    expect(thread.files.list().map((file) => file.id)).not.toContain('F5/page-3-image-3.png');
    const listing = await loadFileTool.execute({ id: 'F5/pictures.txt' }, context);
    expect(listing).toContain('page-3-image-3.png 800×600 px');
    const pictures = thread.files.list().filter((file) => file.id.startsWith('F5/')).map((file) => file.id);
    expect(pictures).toContain('F5/page-3-image-3.png');
    expect(thread.files.get('F5/page-3-image-3.png')).toMatchObject({ mimeType: 'image/png', fileType: 'png' });
    const result = await loadFileTool.execute({ id: 'F5/page-3-image-3.png' }, context);
    expect(result).toMatch(/^Image F5\/page-3-image-3\.png "page-3-image-3\.png" is attached to the next message/);
    const image = shownImages.find((shownImage) => shownImage.fileId === 'F5/page-3-image-3.png');
    expect(image?.dataUrl).toMatch(/^data:image\/(png|jpeg);base64,/);
    const bytes = Buffer.from(image!.dataUrl.slice(image!.dataUrl.indexOf(',') + 1), 'base64');
    const { loadImage } = await import('@napi-rs/canvas');
    const decoded = await loadImage(bytes);
    // Scaled only if it had to fit MAX_IMAGE_KB: the shape stays 4:3.
    expect(decoded.width / decoded.height).toBeCloseTo(800 / 600, 1);
  });
});
