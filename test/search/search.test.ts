import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveDocument } from '../../src/documents/document-store';
import { createSearcher, indexDocument, type Searcher } from '../../src/search';
import type { ExtractedDocument, ThreadFile } from '../../src/core/thread-file';
import type { DatabaseHandle } from '../../src/store/database';
import { testDatabases } from '../support/databases';
import { filler, pagedDocument, sectionedDocument } from './support/documents';

const file = (id: string, name: string): ThreadFile => ({
  id,
  name,
  mimeType: 'application/pdf',
  fileType: 'pdf',
  sizeBytes: 1000,
  messageTs: '1700000000.000100',
});

const budget = pagedDocument([
  filler('the project scope', 20),
  `${filler('staffing', 10)}\n\nTravel costs in March came to 12,400 euros, mostly flights to the Berlin office.`,
  filler('risks and mitigations', 30),
]);
const topology = pagedDocument([
  filler('Vorwort', 5),
  'Definition 10. Ein topologischer Raum X heißt hausdorffsch, wenn es für je zwei Punkte disjunkte Umgebungen gibt. Metrische Räume sind hausdorffsch.',
  'Definition 16. Ein topologischer Raum heißt kompakt, wenn jede offene Überdeckung eine endliche Teilüberdeckung besitzt.',
]);
const plan = sectionedDocument([
  { title: 'Contexte', body: 'La municipalité encourage le transport actif depuis 2005.' },
  { title: 'Entretien', body: "Le déneigement des pistes cyclables l'hiver est demandé par les résidents." },
]);
const quarterly = pagedDocument([
  '东北电气发展股份有限公司 2018 年第一季度报告',
  '公司负责人保证季度报告内容的真\n实、准确、完整。',
  '营业收入（元） 4,755,785.11 上年同期 5,699,227.63 减少 16.55%',
]);
// A table whose later rows are chunks of their own, and notes that use the column names more than any row does.
const checks = pagedDocument([[
  'State Permit Handgun Long Gun Totals',
  ...Array.from({ length: 90 }, (_, i) => `State${i + 1} ${1000 + i} ${2000 + i} ${300 + i} ${3300 + 2 * i}`),
  'Oregon 35 13,586 11,832 25,453',
  ...Array.from({ length: 90 }, (_, i) => `Territory${i + 1} ${1000 + i} ${2000 + i} ${300 + i} ${3300 + 2 * i}`),
  'Notes: long gun totals count rifles and shotguns; a long gun is not a handgun.',
].join('\n')]);
const networks = pagedDocument([
  'Most character predictors use recurrent networks built from long short-term memory (LSTM) cells.',
  filler('training data', 10),
  'References: S. Hochreiter and J. Schmidhuber, Long short-term memory, Neural Computation 9 (1997).',
]);
const register = pagedDocument([
  'Federal Register Vol. 85. [Docket No. FAA-2020-0686] FR Doc. 2020-17221 Filed 8-5-20.',
  filler('airworthiness directives', 12),
]);

describe.each(testDatabases())('search on $label', (database) => {
  let handle: DatabaseHandle;
  let search: Searcher;
  const files = [
    file('F1', 'budget.pdf'),
    file('F2', 'geotopo.pdf'),
    file('F3', 'plan.docx'),
    file('F4', 'quarterly.pdf'),
    file('F5', 'register.pdf'),
    file('F6', 'budget copy.pdf'),
    file('F7', 'checks.pdf'),
    file('F8', 'networks.pdf'),
  ];
  const hashes = new Map([
    ['F1', 'hash-budget'],
    ['F2', 'hash-topology'],
    ['F3', 'hash-plan'],
    ['F4', 'hash-quarterly'],
    ['F5', 'hash-register'],
    ['F6', 'hash-budget'],
    ['F7', 'hash-checks'],
    ['F8', 'hash-networks'],
  ]);
  const store = async (hash: string, document: ExtractedDocument, index = true) => {
    await saveDocument(handle.db, hash, { document });
    if (index) await indexDocument(handle.db, hash, document);
  };
  const searchIn = (ids: string[], query: string, limit = 5) =>
    search({ files: files.filter((f) => ids.includes(f.id)), contentHashes: hashes, query, limit });

  beforeAll(async () => {
    handle = await database.open();
    search = createSearcher({ db: handle.db });
    await store('hash-budget', budget);
    await store('hash-topology', topology);
    await store('hash-plan', plan);
    await store('hash-quarterly', quarterly);
    await store('hash-checks', checks);
    await store('hash-networks', networks);
    // Extracted before search existed: the searcher indexes it on first use.
    await store('hash-register', register, false);
  });
  afterAll(async () => {
    await handle?.close();
  });

  it('finds the page that answers a question, with its location and offsets', async () => {
    const [hit] = await searchIn(['F1'], 'How much did travel cost in March?');

    expect(hit).toMatchObject({ fileId: 'F1', fileName: 'budget.pdf', location: 'p. 2', page: 2 });
    expect(budget.text.slice(hit!.start, hit!.end)).toBe(hit!.text);
    expect(hit!.text).toContain('12,400 euros');
  });

  it('matches German inflections through stemming', async () => {
    const [hit] = await searchIn(['F2'], 'Wann ist ein topologischer Raum kompakt?');
    expect(hit!.page).toBe(3);
    const [plural] = await searchIn(['F2'], 'hausdorffsche Räume');
    expect(plural!.page).toBe(2);
  });

  it('matches French plurals and elisions', async () => {
    const [hit] = await searchIn(['F3'], 'déneiger une piste cyclable en hiver');
    expect(hit!.location).toBe('§ Entretien');
  });

  it('finds Chinese text by character bigrams, across a line wrap', async () => {
    const [revenue] = await searchIn(['F4'], '营业收入是多少？');
    expect(revenue!.page).toBe(3);
    const [truthful] = await searchIn(['F4'], '报告内容真实吗');
    expect(truthful!.page).toBe(2);
  });

  it('finds a table row by its column names, though the header is chunks away', async () => {
    const [hit] = await searchIn(['F7'], 'long gun totals for Oregon');
    expect(hit!.text).toContain('Oregon 35 13,586');
    expect(hit!.text).not.toContain('State Permit Handgun');
  });

  it('finds an acronym spelled out where the document defines it, as well as the acronym itself', async () => {
    const hits = await searchIn(['F8'], 'LSTM');
    expect(hits.slice(0, 2).map((h) => h.page)).toEqual([1, 3]);
  });

  it('finds document numbers, and indexes a stored document on its first search', async () => {
    const [hit] = await searchIn(['F5'], '2020-17221');
    expect(hit!.page).toBe(1);
    const [docket] = await searchIn(['F5'], 'FAA-2020-0686');
    expect(docket!.page).toBe(1);
  });

  it('searches every file of the thread at once, crediting shared bytes to the first file', async () => {
    const hits = await searchIn(['F1', 'F2', 'F3', 'F4', 'F5', 'F6'], 'travel costs Berlin office', 3);

    expect(hits[0]).toMatchObject({ fileId: 'F1', page: 2 });
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits.some((h) => h.fileId === 'F6')).toBe(false);
  });

  it('returns nothing when no word matches', async () => {
    expect(await searchIn(['F1'], 'photosynthesis chlorophyll')).toEqual([]);
  });

  it('refuses a query without words', async () => {
    await expect(searchIn(['F1'], '?! …')).rejects.toThrow(/no words to look for/);
  });
});
