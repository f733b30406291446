/**
 * Reciprocal rank fusion (Cormack et al., 2009): each list votes 1 / (k + rank) for its items. It needs no score
 * calibration between BM25 and cosine similarity, which live on unrelated scales, and an item ranked well by both
 * lists beats one ranked first by only one of them.
 */
const K = 60;

export function fuseRankings(lists: number[][], limit: number): Array<{ id: number; score: number }> {
  const scores = new Map<number, number>();
  for (const list of lists) {
    list.forEach((id, index) => scores.set(id, (scores.get(id) ?? 0) + 1 / (K + index + 1)));
  }
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, limit);
}
