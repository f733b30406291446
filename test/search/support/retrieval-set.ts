/**
 * The project's retrieval sets: questions over corpus documents with where their answer is. The first
 * (test/fixtures/retrieval-set.json) mostly reuses the documents' words; the paraphrased one
 * (test/fixtures/retrieval-set-paraphrased.json) asks the way colleagues do: other words, often another language,
 * often a figure in a table; the harder one (test/fixtures/retrieval-set-harder.json) asks in the documents' own
 * language about documents neither uses. Shared by the tests and the bench (search.recall_at_5, search.paraphrased.*,
 * search.harder_same_language.*).
 */
import { readFileSync } from 'node:fs';
import type { SearchHit } from '../../../src/search/search-hit';

export interface RetrievalQuestion {
  file: string;
  question: string;
  /** Any of these pages answers it (paged files). */
  pages?: number[];
  /** A phrase of the answering passage; decides for files without pages. */
  evidence: string;
}

/** A question of the paraphrased set: what it is about and in which language it is asked. */
export interface ParaphrasedQuestion extends RetrievalQuestion {
  /** The document's language (ISO 639-1). */
  language: string;
  questionLanguage: string;
  /** text: answered in running text; table: by a table row or list entry; number: the answer is a figure. */
  kind: 'text' | 'table' | 'number';
  /** Cross-language questions: the question put in the document's language, as a model would before searching. */
  translation?: string;
}

export function loadRetrievalSet(): RetrievalQuestion[] {
  return readSet<RetrievalQuestion>('retrieval-set.json');
}

export function loadParaphrasedSet(): ParaphrasedQuestion[] {
  return readSet<ParaphrasedQuestion>('retrieval-set-paraphrased.json');
}

/**
 * The harder same-language set (test/fixtures/retrieval-set-harder.json): questions written before their answer was
 * looked up, on documents the other two sets do not use, each searched over all of the set's files at once.
 */
export function loadHarderSet(): ParaphrasedQuestion[] {
  return readSet<ParaphrasedQuestion>('retrieval-set-harder.json');
}

function readSet<T>(name: string): T[] {
  const url = new URL(`../../fixtures/${name}`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { questions: T[] }).questions;
}

export function isCrossLanguage(question: ParaphrasedQuestion): boolean {
  return question.language !== question.questionLanguage;
}

export function retrievalFiles(questions: RetrievalQuestion[]): string[] {
  return [...new Set(questions.map((q) => q.file))];
}

/** A hit answers when it is on one of the question's pages, or (no pages) when it holds the evidence. */
function answers(hit: SearchHit, question: RetrievalQuestion): boolean {
  if (question.pages) return hit.page !== undefined && question.pages.includes(hit.page);
  return normalise(hit.text).includes(normalise(question.evidence));
}

/** Case and spacing do not count; markdown escapes and table pipes the extractor may add do not either. */
export function normalise(text: string): string {
  return text.replace(/\\([\\`*_{}[\]()#+\-.!$|])/g, '$1').replace(/[\s|]+/g, ' ').trim().toLowerCase();
}

export interface RecallResult<Q extends RetrievalQuestion = RetrievalQuestion> {
  recall: number;
  misses: Array<{ question: Q; got: string[] }>;
}

/** Share of questions with an answering passage among the first k hits of `search`. */
export async function measureRecall<Q extends RetrievalQuestion>(
  questions: Q[],
  k: number,
  search: (question: Q) => Promise<SearchHit[]>,
): Promise<RecallResult<Q>> {
  const ranks = await rankOfAnswers(questions, search);
  return recallAt(questions, ranks, k);
}

/**
 * Where the first answering hit of each question is (0-based; Infinity when none of the hits answers), so recall
 * at several depths comes from one search per question.
 */
export async function rankOfAnswers<Q extends RetrievalQuestion>(
  questions: Q[],
  search: (question: Q) => Promise<SearchHit[]>,
): Promise<Array<{ rank: number; got: string[] }>> {
  const ranks: Array<{ rank: number; got: string[] }> = [];
  for (const question of questions) {
    const hits = await search(question);
    const rank = hits.findIndex((hit) => answers(hit, question));
    ranks.push({ rank: rank === -1 ? Infinity : rank, got: hits.map((h) => h.location) });
  }
  return ranks;
}

export function recallAt<Q extends RetrievalQuestion>(
  questions: Q[],
  ranks: Array<{ rank: number; got: string[] }>,
  k: number,
): RecallResult<Q> {
  const misses: RecallResult<Q>['misses'] = [];
  questions.forEach((question, i) => {
    if (ranks[i]!.rank >= k) misses.push({ question, got: ranks[i]!.got.slice(0, k) });
  });
  return { recall: questions.length ? (questions.length - misses.length) / questions.length : 0, misses };
}
