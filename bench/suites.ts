import type { BenchSuite } from './figures';
import { contextSuite } from './context';
import { extractSuite } from './extract';
import { searchSuite } from './search';
import { loadSuite } from './load';

/** Every bench suite, in the order they run. Each lives in its own file beside this one. */
export const suites: BenchSuite[] = [contextSuite, extractSuite, searchSuite, loadSuite];
