/**
 * `node bench/profile-pdf.mjs [--rounds N] [--out FILE.cpuprofile] [names…]`: extracts the corpus PDFs through
 * the worker's own entry (worker-entry.mjs, called on this thread), one warm-up pass first, then profiles the
 * measured passes with the inspector and prints CPU seconds per file and the functions and packages with the most
 * self time. Plain JavaScript, like the worker entry, so pdf.js loads natively as it does in a worker.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '1' }, out: { type: 'string' }, top: { type: 'string', default: '30' } },
  allowPositionals: true,
});
const corpusDir = path.resolve(fileURLToPath(new URL('../', import.meta.url)), '../shared/corpus');
const names = positionals.length ? positionals : readdirSync(corpusDir).filter((name) => name.endsWith('.pdf')).sort();
const { default: runInWorker } = await import('../src/documents/worker-entry.mjs');

const task = (name) => {
  const buffer = readFileSync(path.join(corpusDir, name));
  return {
    bytes: new Uint8Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength)),
    name,
    kind: 'pdf',
    limits: { maxRowsPerSheet: 1000, maxTableChars: 2_000_000, maxUnzippedBytes: 300 * 1024 * 1024, maxZipRatio: 200 },
    ocr: { languages: [], maxPages: 0 },
  };
};
const cpuSeconds = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

for (const name of names) await runInWorker(task(name)); // warm-up: modules, JIT

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
await session.post('Profiler.start');
const perFile = new Map();
const started = process.cpuUsage();
for (let round = 0; round < Number(values.rounds); round++) {
  for (const name of names) {
    const before = process.cpuUsage();
    const outcome = await runInWorker(task(name));
    perFile.set(name, Math.min(perFile.get(name) ?? Infinity, cpuSeconds(before)));
    if (round === 0 && !outcome.ok) perFile.set(`${name} (${outcome.code})`, perFile.get(name)), perFile.delete(name);
  }
}
const total = cpuSeconds(started) / Number(values.rounds);
const { profile } = await session.post('Profiler.stop');
session.disconnect();
if (values.out) writeFileSync(values.out, JSON.stringify(profile));

console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${names.length} PDFs, ${total.toFixed(2)} s CPU per pass`);
for (const [name, seconds] of [...perFile].sort((a, b) => b[1] - a[1])) console.log(`  ${seconds.toFixed(3)} s  ${name}`);

// Self time per function and per package, from the samples.
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
const dt = profile.timeDeltas;
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0)));
const sampled = [...self.values()].reduce((a, b) => a + b, 0);
const fn = new Map();
const pkg = new Map();
for (const [id, micros] of self) {
  const { callFrame } = byId.get(id);
  const file = callFrame.url.replace(/^file:\/\//, '');
  const where = file.includes('node_modules/')
    ? file.slice(file.lastIndexOf('node_modules/') + 13).split('/').slice(0, file.includes('/@') ? 2 : 1).join('/') + (file.includes('pdf.worker') ? ' (worker)' : file.includes('pdf.mjs') ? ' (pdf.mjs)' : '')
    : file.includes('/src/') ? `src/${file.split('/src/')[1]}` : file || '(native)';
  const key = `${callFrame.functionName || '(anonymous)'}  ${file ? path.basename(file) : ''}:${callFrame.lineNumber + 1}`;
  fn.set(key, (fn.get(key) ?? 0) + micros);
  pkg.set(where, (pkg.get(where) ?? 0) + micros);
}
const show = (title, map, top) => {
  console.log(title);
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${((100 * micros) / sampled).toFixed(1).padStart(5)} %  ${(micros / 1e6 / Number(values.rounds)).toFixed(3)} s  ${key}`);
  }
};
show('self time by package / file:', pkg, 15);
show('self time by function:', fn, Number(values.top));
