/**
 * Builds what `npm start` and `npm run chat` run: src/main.ts and src/chat.ts bundled into dist/ as plain
 * JavaScript, with the packages left as imports.
 *
 * Why: under tsx every module Node loads (ours and the ~2,000 files of our packages) passes through tsx's loader
 * thread, and ours are transformed on the way. That was 3.3 s of CPU on the main thread and as much on the loader's
 * (plus the esbuild service process), about half of a start. A prebuilt bundle loads in under half that, with
 * no loader thread and no extra process. Workers and child processes (extraction, the table engine) keep loading
 * their TypeScript through tsx, as they only start when first needed.
 *
 *   node scripts/build.mjs             build now
 *   node scripts/build.mjs --if-stale  build only when a source file changed since the last build (npm's prestart)
 *
 * Relative paths: code in src/ finds files beside it through `new URL('./x.mjs', import.meta.url)` (worker entries,
 * drizzle/, the PGlite template). In a bundle, import.meta.url would be dist/'s, so each of our files gets its own
 * original location instead, and those paths keep pointing into src/.
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = path.join(root, 'dist');
/** The source files the last build read, with their sizes and modification times. */
const inputsFile = path.join(outdir, 'inputs.json');
const entryPoints = { main: 'src/main.ts', chat: 'src/chat.ts' };

if (process.argv.includes('--if-stale') && !stale()) process.exit(0);
try {
  await build();
} catch (error) {
  // A syntax error: esbuild has printed the file and line already. A read-only checkout (systemd's ProtectSystem):
  // the build belongs to whoever updates the checkout.
  const why = error?.code === 'EROFS' || error?.code === 'EACCES' ? `${root} is not writable here; run \`npm run build\` there as its owner after updating it` : `${error?.message?.split('\n')[0] ?? error}; fix the error above, or run it from source with \`node --import tsx src/main.ts\``;
  process.stderr.write(`threadwise: could not build dist/ from src/: ${why}\n`);
  process.exit(1);
}

/** True when dist/ is missing, or a file the last build read has changed (a new file needs an import: a change). */
function stale() {
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(inputsFile, 'utf8'));
  } catch {
    return true;
  }
  for (const [file, seen] of Object.entries(inputs)) {
    let now;
    try {
      now = statSync(path.join(root, file));
    } catch {
      return true;
    }
    if (now.size !== seen.size || now.mtimeMs !== seen.mtimeMs) return true;
  }
  return !Object.keys(entryPoints).every((name) => existsSync(path.join(outdir, `${name}.mjs`)));
}

async function build() {
  const { build: esbuild } = await import('esbuild');
  // Built next to dist/ and swapped in whole: a start running at the same moment sees the old build or the new.
  const staging = `${outdir}.building-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints,
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    // Every output file directly in dist/, so one relative path leads from any of them back to src/ (below).
    chunkNames: '[name]-[hash]',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [ownLocationForEachFile()],
  });
  const inputs = {};
  for (const file of Object.keys(result.metafile.inputs)) {
    if (file.startsWith('node_modules/')) continue;
    const { size, mtimeMs } = statSync(path.join(root, file));
    inputs[file] = { size, mtimeMs };
  }
  writeFileSync(path.join(staging, 'inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);
  const old = `${outdir}.old-${process.pid}`;
  try {
    renameSync(outdir, old);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  try {
    renameSync(staging, outdir);
  } catch (error) {
    // Another build of the same sources (two `npm start`s at once) landed first: keep it.
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    rmSync(staging, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

/** Replaces import.meta.url in each of our files with that file's own URL, relative to where its code now lives. */
function ownLocationForEachFile() {
  return { name: 'own-location-for-each-file', setup };
}

function setup(builder) {
  builder.onLoad({ filter: /[\\/]src[\\/].*\.(ts|mjs)$/ }, (args) => {
    const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      // Relative, so the checkout can move after the build; resolved against the output file's own URL at run time.
      const fromDist = path.relative(outdir, args.path).split(path.sep).join('/');
      const expression = `new URL(${JSON.stringify(fromDist)}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', expression), loader: args.path.endsWith('.mjs') ? 'js' : 'ts' };
    });
}
