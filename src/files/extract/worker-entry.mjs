/**
 * The file piscina loads in each worker thread. Worker threads do not inherit tsx's loader from the parent (and
 * under vitest there is no tsx in the parent at all), so this plain-JS entry registers tsx itself before loading
 * the TypeScript task. It is plain `.mjs` so Node can load it with no loader in place.
 */
import { register } from 'tsx/esm/api';

register();

// Start loading at once so the first task does not pay for it; a failure is reported by the first task.
const loading = import('./run-task.ts');
loading.catch(() => {});

export default async function runInWorker(task) {
  const { runTask } = await loading;
  return runTask(task);
}
