import type { BenchSuite } from './figures';
import { contextSuite } from './context';
import { extractSuite } from './extract';

/** Every bench suite, in the order they run. Each lives in its own file beside this one. */
export const suites: BenchSuite[] = [contextSuite, extractSuite];
