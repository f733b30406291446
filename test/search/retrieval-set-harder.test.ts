/**
 * Keeps the harder same-language set (test/fixtures/retrieval-set-harder.json) honest: its documents are ones the
 * other sets do not use, every question is asked in its document's language, the evidence is not part of the
 * question, and (corpus tier) every evidence quote is in the extracted text of its document.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExtractedDocument } from '../../src/core/thread-file';
import { extractCorpusFiles, hasCorpus } from '../support/corpus';
import { isCrossLanguage, loadHarderSet, loadParaphrasedSet, loadRetrievalSet, normalise, retrievalFiles } from './support/retrieval-set';

const questions = loadHarderSet();
const names = retrievalFiles(questions);

describe('the harder same-language retrieval set', () => {
  it('has at least 40 questions over at least 8 documents', () => {
    expect(questions.length).toBeGreaterThanOrEqual(40);
    expect(names.length).toBeGreaterThanOrEqual(8);
  });

  it('uses no document of the other two sets', () => {
    const used = new Set(retrievalFiles([...loadRetrievalSet(), ...loadParaphrasedSet()]));
    expect(names.filter((name) => used.has(name))).toEqual([]);
  });

  it('asks every question in the language of its document', () => {
    expect(questions.filter(isCrossLanguage).map((q) => q.question)).toEqual([]);
  });

  it('never puts the evidence in the question', () => {
    for (const q of questions) expect(normalise(q.question), q.question).not.toContain(normalise(q.evidence));
  });
});

describe.runIf(hasCorpus(...names))('corpus: the harder retrieval set against the extracted documents', () => {
  let documents: Map<string, ExtractedDocument>;
  beforeAll(async () => {
    documents = await extractCorpusFiles(names);
  }, 600_000);

  it('has every evidence quote in its document', () => {
    const missing = questions.filter((q) => !normalise(documents.get(q.file)!.text).includes(normalise(q.evidence)));
    expect(missing.map((q) => `${q.file}: "${q.evidence}" (${q.question})`)).toEqual([]);
  });
});
