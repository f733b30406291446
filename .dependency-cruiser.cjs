/**
 * The architecture as a rule (npm run lint:deps, run by CI). src/ is layered like DESIGN.md's data flow: a folder
 * may import only folders in tiers below its own, never a sibling in its tier and never upwards. Everything that
 * touches the outside world is constructed in the composition root (src/app/, and the entry points src/main.ts for
 * the bot and src/chat.ts for the terminal). evals/ is a tool on top of it all: it may use src/, src/ never uses it.
 */
const tiers = [
  ['app'], // composition root: builds the clients and wires the parts together
  ['slack', 'terminal', 'console'], // edges: Slack in and out (and Slack's file downloads); the terminal (and the evals' threads) in Slack's place; the operator console
  ['runs'], // one run: read → prepare → agent → deliver
  ['conversation', 'context'], // pure: Slack messages → turns; turns + files + skills → the model's request
  ['agent'], // the function-calling loop
  ['tools'], // what the model can call: one file per tool, each leading down to its implementation
  ['knowledge'], // beyond the thread: the index of channel messages, who may read them, memories
  ['files'], // the thread's files: ids, sources, access, cache, preloads, images
  ['search', 'charts'], // a query → the best passages of a document; a result → a chart or a Slack table
  ['documents', 'tables'], // bytes → an extracted document: formats, OCR, the worker pool; SQL over a data file (DuckDB)
  ['tasks'], // scheduled tasks: schedules in a time zone, in words; the scheduler that claims due occurrences once
  ['skills', 'store', 'config', 'mcp'], // underneath everything
  ['text', 'logging', 'runtime'], // tokens and languages; the log; threads' priorities
  ['core'], // shared vocabulary: types, errors, tiny pure helpers
];
/** The SDKs and drivers that talk to the outside world: only the composition root constructs them. */
const CLIENT_PACKAGES = '(openai|@slack/bolt|postgres|@electric-sql/pglite|drizzle-orm/(pglite|postgres-js))';
const CLIENTS = `node_modules/${CLIENT_PACKAGES}/`;

/**
 * The Slack edge may name Bolt's types. dependency-cruiser's swc parser does not tell `import type` from a value
 * import (only its tsc parser does, and TypeScript 7 has no JS API), so the Slack files that import a client for
 * its value are found here, with the same parser, and the rule below names exactly those. `import { type X }` counts
 * as a value import: with verbatimModuleSyntax the module is still loaded.
 */
function filesImportingClientValues(root) {
  const { readdirSync } = require('node:fs');
  const { join } = require('node:path');
  const { parseFileSync } = require('@swc/core');
  const client = new RegExp(`^${CLIENT_PACKAGES}(/|$)`);
  const sources = readdirSync(join(__dirname, root), { recursive: true })
    .map((file) => `${root}/${String(file).split('\\').join('/')}`)
    .filter((file) => /\.(ts|mts|js|mjs)$/.test(file) && !/\.d\.m?ts$/.test(file));
  return sources.filter((file) =>
    parseFileSync(join(__dirname, file), { syntax: 'typescript' }).body.some(
      (node) =>
        ['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration'].includes(node.type) &&
        node.source &&
        client.test(node.source.value) &&
        !node.typeOnly,
    ),
  );
}
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SLACK_CLIENT_VALUE_IMPORTS = filesImportingClientValues('src/slack');
/** The processes' entry points: composition roots, imported by nothing. */
const ENTRY_POINTS = '^src/(main|chat)\\.ts$';
const folderTier = new Map(tiers.flatMap((folders, tier) => folders.map((folder) => [folder, tier])));
const notBelow = (folder) => [...folderTier].filter(([other, tier]) => other !== folder && tier <= folderTier.get(folder)).map(([other]) => other);

const layerRules = [...folderTier.keys()].map((folder) => ({
  name: `layers-${folder}`,
  comment: `src/${folder}/ may import only folders below it: ${[...folderTier].filter(([, t]) => t > folderTier.get(folder)).map(([f]) => f).join(', ') || 'none'}`,
  severity: 'error',
  from: { path: `^src/${folder}/` },
  to: { path: `^src/(${notBelow(folder).join('|')})/|${ENTRY_POINTS}` },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular',
      comment: 'No import cycles between files (type imports included).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'pure-core',
      comment: 'conversation/, context/ and agent/ are plain functions: no database, no network, no files, no processes.',
      severity: 'error',
      from: { path: '^src/(conversation|context|agent)/' },
      to: {
        path: '^src/(store|runtime|config)/|^(node:)?(fs|fs/promises|net|http|https|child_process|worker_threads|dgram|tls|cluster)$|node_modules/(openai|@slack|postgres|@electric-sql|drizzle-orm|piscina|@modelcontextprotocol)/',
      },
    },
    {
      name: 'clients-in-the-composition-root',
      comment: 'Only the composition root imports the model SDK, Bolt and the database drivers.',
      severity: 'error',
      from: { pathNot: `^src/(app|slack)/|${ENTRY_POINTS}` },
      to: { path: CLIENTS },
    },
    {
      name: 'slack-names-bolt-types-only',
      comment: "The Slack edge may name Bolt's types (`import type`), but builds no client: a value import of Bolt, the model SDK or a database driver stays in the composition root.",
      severity: 'error',
      // Matches no file while every import of a client from src/slack/ is `import type`.
      from: { path: SLACK_CLIENT_VALUE_IMPORTS.length ? `^(${SLACK_CLIENT_VALUE_IMPORTS.map(escapeRegExp).join('|')})$` : '^$' },
      to: { path: CLIENTS },
    },
    {
      name: 'heavy-libraries-off-the-main-process',
      comment:
        "DuckDB's Node package loads only in the table engine's process (tables/engine-process.mjs) and vega, vega-lite and resvg only in the chart worker (charts/chart-worker.mjs): both are started by path, never imported, so nothing the entry points import (types included) may lead to them. They cost ~400 ms of every start and would draw charts on the event loop.",
      severity: 'error',
      from: { path: ENTRY_POINTS },
      to: { path: 'node_modules/(@duckdb/node-api|vega|vega-lite|@resvg/resvg-js)/', reachable: true },
    },
    {
      name: 'src-not-from-tests',
      comment: 'The app never imports its tests, benchmarks or evals.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|evals)/' },
    },
    {
      name: 'evals-are-shipped',
      comment: 'npm run eval is part of the product (CI runs it against its scripted model): it never imports test code.',
      severity: 'error',
      from: { path: '^evals/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'evals-through-the-front-door',
      comment: 'The evals build threadwise as the terminal does (app/local.ts) and talk to it through the local edge.',
      severity: 'error',
      from: { path: '^evals/' },
      to: { path: `^src/(slack|runs|conversation|agent|tools|store)/|${ENTRY_POINTS}` },
    },
  ],
  options: {
    // TypeScript 7 has no JS API; swc parses the sources, type-only imports included.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
