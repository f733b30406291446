/**
 * Keeps the paraphrased retrieval set (test/fixtures/retrieval-set-paraphrased.json) honest, against the real
 * extraction of each corpus document: every evidence quote is on the page the question names (on each of them), no
 * question takes five words in a row from its document, the evidence is not part of the
 * question, and the set keeps its shape (size, documents, languages, a third cross-language, a third tables/figures).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExtractedDocument } from '../../src/core/thread-file';
import { extractCorpusFiles, hasCorpus } from '../support/corpus';
import { isCrossLanguage, loadParaphrasedSet, normalise, retrievalFiles } from './support/retrieval-set';

const questions = loadParaphrasedSet();
const names = retrievalFiles(questions);
const available = hasCorpus(...names);

/** The longest run of words a question may share with its document. */
const MAX_SHARED_RUN = 4;
const words = new Intl.Segmenter('und', { granularity: 'word' });

/**
 * Word-like tokens, lower-cased, running on across line breaks; Intl.Segmenter splits Chinese into words as well.
 * Segmented a line at a time: over a whole document at once the segmenter slows down more than linearly.
 */
function tokens(text: string): string[] {
  return text.split('\n').flatMap((line) =>
    Array.from(words.segment(normalise(line)), (s) => (s.isWordLike ? s.segment : '')).filter(Boolean));
}

function runs(list: string[], length: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + length <= list.length; i += 1) out.push(list.slice(i, i + length).join(' '));
  return out;
}

describe('the paraphrased retrieval set', () => {
  it('has at least 100 questions over at least 8 documents in at least 4 languages', () => {
    expect(questions.length).toBeGreaterThanOrEqual(100);
    expect(names.length).toBeGreaterThanOrEqual(8);
    expect(new Set(questions.map((q) => q.language)).size).toBeGreaterThanOrEqual(4);
  });

  it('asks a third across languages and a third about tables or figures', () => {
    expect(questions.filter(isCrossLanguage).length * 3).toBeGreaterThanOrEqual(questions.length);
    expect(questions.filter((q) => q.kind !== 'text').length * 3).toBeGreaterThanOrEqual(questions.length);
  });

  it('gives a translation for exactly the cross-language questions', () => {
    for (const q of questions) expect(Boolean(q.translation), q.question).toBe(isCrossLanguage(q));
  });

  it('never puts the evidence in the question', () => {
    for (const q of questions) expect(normalise(q.question), q.question).not.toContain(normalise(q.evidence));
  });
});

describe.runIf(available)('corpus: the paraphrased retrieval set against the extracted documents', () => {
  let documents: Map<string, ExtractedDocument>;
  beforeAll(async () => {
    documents = await extractCorpusFiles(names);
  }, 600_000);

  it('has every evidence quote on each page it names (or in the document, for files without pages)', () => {
    const wrong: string[] = [];
    for (const q of questions) {
      const document = documents.get(q.file)!;
      const places = q.pages
        ? q.pages.map((page) => {
          const segment = document.segments.find((s) => s.kind === 'page' && s.number === page);
          return { label: `p. ${page}`, text: segment ? document.text.slice(segment.start, segment.end) : '' };
        })
        : [{ label: 'the document', text: document.text }];
      for (const place of places) {
        if (!normalise(place.text).includes(normalise(q.evidence))) wrong.push(`${q.file} ${place.label}: "${q.evidence}" (${q.question})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('shares no run of five words with the document, in the question', () => {
    const copied: string[] = [];
    const documentRuns = new Map<string, Set<string>>();
    for (const [name, document] of documents) documentRuns.set(name, new Set(runs(tokens(document.text), MAX_SHARED_RUN + 1)));
    for (const q of questions) {
      const shared = runs(tokens(q.question), MAX_SHARED_RUN + 1).filter((run) => documentRuns.get(q.file)!.has(run));
      if (shared.length) copied.push(`${q.file}: "${q.question}" shares "${shared[0]}"`);
    }
    expect(copied).toEqual([]);
  });
});
