/**
 * The project's own retrieval set (test/fixtures/retrieval-set.json): questions over corpus documents with where
 * their answer is. Shared by the recall test and the bench (search.recall_at_5).
 */
import { readFileSync } from 'node:fs';
import type { SearchHit } from '../../../../src/tools/tool';

export interface RetrievalQuestion {
  file: string;
  question: string;
  /** Any of these pages answers it (paged files). */
  pages?: number[];
  /** A phrase of the answering passage; decides for files without pages. */
  evidence: string;
}

export function loadRetrievalSet(): RetrievalQuestion[] {
  const url = new URL('../../../fixtures/retrieval-set.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { questions: RetrievalQuestion[] }).questions;
}

export function retrievalFiles(questions: RetrievalQuestion[]): string[] {
  return [...new Set(questions.map((q) => q.file))];
}

/** A hit answers when it is on one of the question's pages, or (no pages) when it holds the evidence. */
export function answers(hit: SearchHit, question: RetrievalQuestion): boolean {
  if (question.pages) return hit.page !== undefined && question.pages.includes(hit.page);
  return normalise(hit.text).includes(normalise(question.evidence));
}

/** Case and spacing do not count; markdown escapes and table pipes the extractor may add do not either. */
export function normalise(text: string): string {
  return text.replace(/\\([\\`*_{}[\]()#+\-.!$|])/g, '$1').replace(/[\s|]+/g, ' ').trim().toLowerCase();
}

export interface RecallResult {
  recall: number;
  misses: Array<{ question: RetrievalQuestion; got: string[] }>;
}

/** Share of questions with an answering passage among the first k hits of `search`. */
export async function measureRecall(
  questions: RetrievalQuestion[],
  k: number,
  search: (question: RetrievalQuestion) => Promise<SearchHit[]>,
): Promise<RecallResult> {
  const misses: RecallResult['misses'] = [];
  for (const question of questions) {
    const hits = (await search(question)).slice(0, k);
    if (!hits.some((hit) => answers(hit, question))) misses.push({ question, got: hits.map((h) => h.location) });
  }
  return { recall: (questions.length - misses.length) / questions.length, misses };
}
