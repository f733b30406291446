/**
 * Search over real documents of the shared corpus, extracted by the real extractor: the page a question is
 * answered on, Chinese found in a scanned letter's text layer, and the retrieval set's answers for these files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveDocument } from '../../src/documents/document-store';
import { createSearcher, indexDocument, type Searcher } from '../../src/search';
import type { ExtractedDocument, ThreadFile } from '../../src/core/thread-file';
import type { DatabaseHandle } from '../../src/store/database';
import { testDatabases } from '../support/databases';
import { extractCorpusFiles, hasCorpus } from '../support/corpus';
import { loadRetrievalSet, measureRecall, normalise } from './support/retrieval-set';

const NAMES = ['GeoTopo-komprimiert.pdf', 'federal-register-2020-17221.pdf', 'pr-136-example.pdf'];
const available = hasCorpus(...NAMES);

let documents: Map<string, ExtractedDocument>;
beforeAll(async () => {
  if (available) documents = await extractCorpusFiles(NAMES);
});

describe.runIf(available).each(testDatabases())('corpus: search over real documents on $label', (database) => {
  let handle: DatabaseHandle;
  let search: Searcher;
  const files = NAMES.map((name, i): ThreadFile => ({
    id: `F${i + 1}`,
    name,
    mimeType: 'application/pdf',
    fileType: 'pdf',
    sizeBytes: 0,
    messageTs: '1.1',
  }));
  const hashes = new Map(files.map((f) => [f.id, `corpus:${f.name}`]));
  const searchFile = (name: string, query: string) =>
    search({ files: files.filter((f) => f.name === name), contentHashes: hashes, query, limit: 5 });

  beforeAll(async () => {
    handle = await database.open();
    for (const file of files) {
      const document = documents.get(file.name)!;
      await saveDocument(handle.db, hashes.get(file.id)!, { document });
      await indexDocument(handle.db, hashes.get(file.id)!, document);
    }
    search = createSearcher({ db: handle.db });
  });
  afterAll(async () => {
    await handle?.close();
  });

  it('finds the right page of a 117-page German textbook', async () => {
    const [hit] = await searchFile('GeoTopo-komprimiert.pdf', 'Was ist die französische Eisenbahnmetrik?');
    // The PDF's page 12 is printed as page 9: the citation names both, so either can be found again.
    expect(hit).toMatchObject({ location: 'p. 12 (printed 9)', page: 12 });
    const [proof] = await searchFile('GeoTopo-komprimiert.pdf', 'Satz von Seifert und van Kampen');
    expect(proof!.page).toBeGreaterThan(50);
  });

  it('finds the page of a three-column Federal Register notice', async () => {
    const [hit] = await searchFile('federal-register-2020-17221.pdf', 'How many people died in the Ethiopian Airlines accident?');
    expect(hit!.page).toBe(2);
    expect(hit!.text).toContain('157 fatalities');
  });

  it('finds Chinese in the text layer of a scanned auditor letter', async () => {
    const hits = await searchFile('pr-136-example.pdf', '担保损失率');
    expect(hits[0]!.page).toBe(4);
    expect(hits[0]!.text).toContain('担保损失率');
  });

  it('agrees with the retrieval set: each answer is on the page it names', () => {
    for (const question of loadRetrievalSet().filter((q) => NAMES.includes(q.file))) {
      const document = documents.get(question.file)!;
      const pages = document.segments.filter((s) => question.pages!.includes(s.number));
      const onPage = pages.some((s) => normalise(document.text.slice(s.start, s.end)).includes(normalise(question.evidence)));
      expect(onPage, `${question.file}: "${question.evidence}" on p. ${question.pages!.join('/')}`).toBe(true);
    }
  });

  it('answers the retrieval set questions for these files within the first five hits', async () => {
    const questions = loadRetrievalSet().filter((q) => NAMES.includes(q.file));
    const { recall, misses } = await measureRecall(questions, 5, (q) => searchFile(q.file, q.question));
    expect(recall, JSON.stringify(misses.map((m) => m.question.question))).toBeGreaterThanOrEqual(0.9);
  });
});
