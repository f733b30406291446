/**
 * Each step of query analysis on real corpus text, extracted by the real extractor and indexed in a real database:
 * German compounds split into the document's words, French written without its accents, a Chinese question about a
 * table row reduced to its words, cognates across languages, and printed page numbers beside PDF page numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveDocument } from '../../src/documents/document-store';
import { createSearcher, indexDocument, type Searcher } from '../../src/search';
import { toCjkQueryBigrams } from '../../src/search/cjk-bigrams';
import { expandWords, loadVocabulary } from '../../src/search/document-vocabulary';
import { findPrintedPageNumbers } from '../../src/search/printed-page-numbers';
import { documentLanguage, type ExtractedDocument, type ThreadFile } from '../../src/core/thread-file';
import { describeDocumentLanguage } from '../../src/text/language';
import type { DatabaseHandle } from '../../src/store/database';
import { testDatabases } from '../support/databases';
import { extractCorpusFiles, hasCorpus } from '../support/corpus';

const NAMES = ['GeoTopo-komprimiert.pdf', 'chelsea_pdta.pdf', 'issue-67-example.pdf'];
const available = hasCorpus(...NAMES);

let documents: Map<string, ExtractedDocument>;
beforeAll(async () => {
  if (available) documents = await extractCorpusFiles(NAMES);
}, 600_000);

describe('Chinese questions lose their question words, not their content', () => {
  it('keeps the words of a question about a table row and drops the pairs that only ask', () => {
    const grams = toCjkQueryBigrams('合并报表里的存货期末有多少？');
    expect(grams).toEqual(expect.arrayContaining(['合并', '报表', '存货', '期末']));
    for (const noise of ['多少', '的存', '有多', '表里']) expect(grams).not.toContain(noise);
    // The dictionary splits 净额 into two one-character words; the pair survives all the same.
    expect(toCjkQueryBigrams('本季度经营性现金流净额是多少？')).toContain('净额');
    expect(toCjkQueryBigrams('是多少')).toEqual(['是多', '多少']);
  });
});

describe('a document’s language, named beside the file', () => {
  it.runIf(available)('corpus: names the German textbook, the French survey and the Chinese report, in the notes the extractor writes', () => {
    const expected = { 'GeoTopo-komprimiert.pdf': 'German', 'chelsea_pdta.pdf': 'French', 'issue-67-example.pdf': 'Chinese' };
    for (const [name, language] of Object.entries(expected)) {
      const document = documents.get(name)!;
      expect(describeDocumentLanguage(document.text), name).toBe(language);
      expect(documentLanguage(document), name).toBe(language);
    }
  });

  it('stays silent on text too short or too mixed to tell', () => {
    expect(describeDocumentLanguage('Q3 2024: 1,234 / 5,678')).toBeUndefined();
    expect(describeDocumentLanguage('')).toBeUndefined();
  });
});

describe.runIf(available).each(testDatabases())('corpus: analysis over real documents on $label', (database) => {
  let handle: DatabaseHandle;
  let search: Searcher;
  const files = NAMES.map((name, i): ThreadFile => ({
    id: `F${i + 1}`, name, mimeType: 'application/pdf', fileType: 'pdf', sizeBytes: 0, messageTs: '1.1',
  }));
  const hashes = new Map(files.map((f) => [f.id, `analysis:${f.name}`]));
  const hashOf = (name: string) => `analysis:${name}`;
  const searchFile = (name: string, query: string | string[]) =>
    search({ files: files.filter((f) => f.name === name), contentHashes: hashes, query, limit: 5 });

  beforeAll(async () => {
    handle = await database.open();
    for (const name of NAMES) {
      await saveDocument(handle.db, hashOf(name), { document: documents.get(name)! });
      await indexDocument(handle.db, hashOf(name), documents.get(name)!);
    }
    search = createSearcher({ db: handle.db });
  });
  afterAll(async () => {
    await handle?.close();
  });

  it('splits a German compound the textbook does not use into words it does', async () => {
    const vocabulary = await loadVocabulary(handle.db, hashOf('GeoTopo-komprimiert.pdf'));
    const parts = expandWords([vocabulary], ['kurvenlänge']).filter((e) => e.part);
    // German stemming drops the umlaut: Länge is indexed as 'lang'.
    expect(parts.map((e) => e.lexeme)).toEqual(expect.arrayContaining(['kurv', 'lang']));
    const [hit] = await searchFile('GeoTopo-komprimiert.pdf', 'Kurvenlänge Bogenlänge');
    expect(hit!.page).toBe(91);
  });

  it('finds French words typed without their accents', async () => {
    const vocabulary = await loadVocabulary(handle.db, hashOf('chelsea_pdta.pdf'));
    expect(expandWords([vocabulary], ['securitaire']).map((e) => e.lexeme)).toContain('sécuritair');
    const hits = await searchFile('chelsea_pdta.pdf', 'ou se trouve la zone scolaire dangereuse, bretelle de sortie');
    expect(hits[0]!.page).toBe(13);
    expect(hits[0]!.reason).toContain('«bretelle»');
  });

  it('matches a cognate in the document\'s language by its letters', async () => {
    const vocabulary = await loadVocabulary(handle.db, hashOf('GeoTopo-komprimiert.pdf'));
    expect(expandWords([vocabulary], ['sierpinski']).map((e) => e.lexeme)).toContain('sierpińskiraum');
    // Pages 26 and 117 name the space too (an exercise, the index); the definition on p. 7 is among the first three.
    const hits = await searchFile('GeoTopo-komprimiert.pdf', 'What is the Sierpinski space?');
    expect(hits.slice(0, 3).map((h) => h.page)).toContain(7);
    expect(hits[0]!.reason).toBe('words «Sierpińskiraum»');
  });

  it('finds a row of a Chinese table by the row\'s name, asked as a question', async () => {
    // The group's balance sheet (p. 11) and the parent company's (p. 14) both have the row.
    const [hit] = await searchFile('issue-67-example.pdf', '负债合计是多少？');
    expect([11, 14]).toContain(hit!.page);
    expect(hit!.text).toMatch(/负债合计\s+(494,937,111\.49|383,280,068\.30)/);
    expect(hit!.language).toBe('Chinese');
  });

  it('names the printed page number where it differs from the PDF page', async () => {
    const chelsea = documents.get('chelsea_pdta.pdf')!;
    const printed = findPrintedPageNumbers(chelsea.text, chelsea.segments);
    expect(printed.get(5)).toBe(4);
    expect(printed.get(26)).toBeUndefined();
    const [hit] = await searchFile('chelsea_pdta.pdf', 'certification bronze Vélo sympathique');
    expect(hit).toMatchObject({ page: 6, location: 'p. 6 (printed 5)' });
    const federal = documents.get('issue-67-example.pdf')!;
    expect(findPrintedPageNumbers(federal.text, federal.segments).size).toBe(0);
  });
});
