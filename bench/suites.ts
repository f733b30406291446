import type { BenchSuite } from './figures';

/**
 * Every bench suite, in the order they run, each loaded only when it runs: `npm run bench` gives each suite a
 * process of its own, so one suite's modules, caches and garbage never show in another's memory or timing figures.
 */
export const suiteLoaders: Record<string, () => Promise<BenchSuite>> = {
  context: () => import('./context').then((m) => m.contextSuite),
  extract: () => import('./extract').then((m) => m.extractSuite),
  'extract-ocr': () => import('./extract-ocr').then((m) => m.extractOcrSuite),
  search: () => import('./search').then((m) => m.searchSuite),
  load: () => import('./load').then((m) => m.loadSuite),
  tables: () => import('./tables').then((m) => m.tablesSuite),
  knowledge: () => import('./knowledge').then((m) => m.knowledgeSuite),
  start: () => import('./start').then((m) => m.startSuite),
  tasks: () => import('./tasks').then((m) => m.tasksSuite),
};
