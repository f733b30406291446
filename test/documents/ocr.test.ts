/**
 * OCR of generated scans (typed lines drawn in DejaVu Sans, JPEG pages without a text layer), and in the corpus tier
 * of the corpus's real scans, with the real extractor (worker threads, tesseract.js, npm language data). Few pages
 * (OCR_MAX_PAGES 1) because a dense page takes seconds. The words checked, and where they come from:
 * - c02-22.pdf: a scanned page of Huckleberry Finn, ch. 2 ("We went tip-toeing along a path amongst the trees back
 *   towards the end of the widow's garden"): "widow", "garden", "path".
 * - skew.pdf: a skewed scan of a LinnSequencer brochure ("The LinnSequencer is a state-of-the-art composition and
 *   performance tool for the professional musician"): "LinnSequencer", "musician".
 * - typewriter.png: a photo of a typed Dutch recipe ("Linzensoep a la Waterman … 3 liter water … 2 kopjes melk"):
 *   "linzen", "liter", "melk".
 * - multipage.pdf: six scanned pages; page 1 is the c02-22 page again: "widow"; the other scans are past the cap.
 * - pr-136-example.pdf: a Chinese auditor's letter scanned with a (noisy) Chinese text layer, so it is read from that
 *   layer, not OCR'd; checked for CJK characters only (which words its layer holds is not verified by hand).
 * Each word was read by a person from the page images (SOURCES.tsv describes the files).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentExtractor } from '../../src/documents';
import { startOcrEngine } from '../../src/documents/ocr';
import { FileReadError, isScannedDocument } from '../../src/core/thread-file';
import { corpus, readCorpusFile } from '../support/corpus';
import { buildPdf, renderTextImage } from '../support/image-pdf';
import { mostlyScanned, scannedNotice, typedNotePhoto } from '../support/fixtures';

const scans = ['c02-22.pdf', 'skew.pdf', 'typewriter.png', 'multipage.pdf', 'pr-136-example.pdf'];

// A dense page takes ~7 s alone here, and CI runs suites side by side: generous limits, never timing assertions.
describe('OCR of scans and images', { timeout: 300_000 }, () => {
  const extractor = createDocumentExtractor({ ocr: { languages: ['eng'], maxPages: 1 }, timeoutMs: 240_000 });
  afterAll(() => extractor.close());

  it('reads generated scans page by page, noting OCR and its confidence', async () => {
    const [notice, photo, multipage] = await Promise.all([
      extractor.extract({ bytes: new Uint8Array(scannedNotice()), name: 'notice.pdf' }),
      extractor.extract({ bytes: new Uint8Array(typedNotePhoto(['Lentil soup for four', '3 liters of water', '2 cups of milk'])), name: 'recipe.jpg' }),
      extractor.extract({ bytes: new Uint8Array(mostlyScanned()), name: 'multipage.pdf' }),
    ]);

    expect(notice.pageCount).toBe(1);
    expect(notice.text).toMatch(/^--- page 1 ---\n/);
    for (const words of ['Notice to residents', 'garden path', '6 March 2026']) expect(notice.text).toContain(words);
    expect(notice.notes.join(' ')).toMatch(/^scanned, OCR: the text of p\. 1 was recognised from the page images \(eng\), mean confidence \d+%/);
    expect(isScannedDocument(notice)).toBe(true);

    expect(photo.pageCount).toBe(1);
    for (const word of ['Lentil', 'liters', 'milk']) expect(photo.text).toContain(word);
    expect(photo.notes[0]).toMatch(/the text was recognised from the image \(eng\)/);

    expect(multipage.pageCount).toBe(6);
    expect(multipage.text).toContain('widow');
    expect(multipage.text).toContain('Typed page: the inventory of the cave');
    expect(multipage.notes).toContainEqual('OCR stopped at OCR_MAX_PAGES=1 pages: pp. 2–3, pp. 5–6 (images only) were not recognised');
  });

  it.runIf(corpus.present)('corpus: reads the real scans page by page, noting OCR and its confidence', async () => {
    const read = async (name: string) => extractor.extract({ bytes: await readCorpusFile(name), name });
    const [c02, skew, typewriter, multipage, chinese] = await Promise.all(scans.map(read));

    expect(c02!.pageCount).toBe(1);
    expect(c02!.text).toMatch(/^--- page 1 ---\n/);
    for (const word of ['widow', 'garden', 'path']) expect(c02!.text).toContain(word);
    expect(c02!.notes.join(' ')).toMatch(/^scanned, OCR: the text of p\. 1 was recognised from the page images \(eng\), mean confidence \d+%/);
    expect(isScannedDocument(c02!)).toBe(true);

    for (const word of ['LinnSequencer', 'musician']) expect(skew!.text).toContain(word);

    expect(typewriter!.pageCount).toBe(1);
    for (const word of ['linzen', 'liter', 'melk']) expect(typewriter!.text).toContain(word);
    expect(typewriter!.notes[0]).toMatch(/the text was recognised from the image \(eng\)/);

    expect(multipage!.pageCount).toBe(6);
    expect(multipage!.text).toContain('widow');
    expect(multipage!.notes).toContainEqual(expect.stringMatching(/^OCR stopped at OCR_MAX_PAGES=1 pages: .+ \(images only\) were not recognised$/));

    expect(isScannedDocument(chinese!)).toBe(false);
    expect(chinese!.text).toMatch(/[\u4e00-\u9fff]/);
  });

  it('OCRs only the pages of a mixed PDF that have no text layer', async () => {
    const pdf = buildPdf([
      { text: ['Quarterly report, born digital.', 'Revenue grew in every region.'] },
      renderTextImage(['Signed and faxed back on Tuesday', 'Approved by the purchasing board']),
    ]);
    const document = await extractor.extract({ bytes: new Uint8Array(pdf), name: 'mixed.pdf' });
    expect(document.pageCount).toBe(2);
    expect(document.text).toContain('Revenue grew in every region.');
    expect(document.text).toMatch(/--- page 2 ---\n[\s\S]*faxed back on Tuesday/);
    expect(document.notes[0]).toMatch(/the text of p\. 2 was recognised/);
  });

  it('says an image without text is a picture, and that images have no text with OCR off', async () => {
    const blank = renderTextImage([]);
    const error = await extractor.extract({ bytes: new Uint8Array(blank.jpeg), name: 'blank.jpg' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileReadError);
    expect(error).toMatchObject({ code: 'empty', message: 'blank.jpg is a picture without text I could recognise; load_file shows it to me as an image instead.' });

    const off = createDocumentExtractor();
    try {
      expect(off.readsImages).toBe(false);
      await expect(off.extract({ bytes: new Uint8Array(blank.jpeg), name: 'blank.jpg' })).rejects.toMatchObject({ code: 'unsupported' });
    } finally {
      await off.close();
    }
  });
});

describe("the pool's one OCR engine", { timeout: 120_000 }, () => {
  /** This process's OCR processes (ocr-process.mjs), by pid. */
  const ocrProcesses = () =>
    readdirSync('/proc/self/task').flatMap((thread) =>
      readFileSync(`/proc/self/task/${thread}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    ).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('ocr-process.mjs');
      } catch {
        return false;
      }
    });
  const exists = (pid: number) => {
    try {
      process.kill(pid, 0); // a process not yet reaped (a zombie) still counts: its memory may not be back
      return true;
    } catch {
      return false;
    }
  };

  it.runIf(process.platform === 'linux')('hands the turn on only once its process has exited, so two engines never hold memory at once', async () => {
    const gate = new Int32Array(new SharedArrayBuffer(4));
    const engine = await startOcrEngine({ languages: ['eng'], maxPages: 1, gate, taskId: 7 });
    const [pid] = ocrProcesses();
    expect(pid).toBeDefined();
    expect(Atomics.load(gate, 0)).toBe(7);

    const closing = engine.close();
    // Atomics.waitAsync (Node 16+) is missing from this TypeScript lib.
    const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number): { async: boolean; value: Promise<string> | string } }).waitAsync;
    const opened = waitAsync(gate, 0, 7);
    if (opened.async) await opened.value;

    expect(Atomics.load(gate, 0)).toBe(0);
    expect(exists(pid!)).toBe(false);
    await closing;
  });
});
