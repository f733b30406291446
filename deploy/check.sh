#!/usr/bin/env bash
# Checks the deployment files without Docker or a running systemd:
#   - threadwise.service: `systemd-analyze verify` when it is installed, and the rules below in any case;
#   - Dockerfile: an official, versioned Node base image, a non-root USER, a HEALTHCHECK on /healthz, no remote ADD,
#     files it copies exist and are not ignored, --omit=dev only while tsx and esbuild are runtime dependencies,
#     dist/ built in the image;
#   - compose.yaml: parsed with the `yaml` package: bot + postgres, healthcheck, depends_on service_healthy, DATABASE_URL
#     wired to the postgres service's user, password and database;
#   - all three run node with the same flags and MALLOC_* settings as package.json's start script.
# Usage: deploy/check.sh   (from anywhere; exit 0 when every check passes)
set -euo pipefail
cd "$(dirname "$0")/.."

failures=0
pass() { printf 'ok    %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; failures=$((failures + 1)); }

echo "== deploy/threadwise.service"
if command -v systemd-analyze >/dev/null 2>&1; then
  # --man=no: the Documentation= line points at this file, not a man page. The unit's user, directories and
  # EnvironmentFile need not exist here; verify checks syntax, known settings and that ExecStart's binary exists.
  # It exits 0 on unknown or misspelt settings and only warns, so any output counts as a failure.
  status=0; out=$(systemd-analyze verify --man=no deploy/threadwise.service 2>&1) || status=$?
  if [ "$status" -eq 0 ] && [ -z "$out" ]; then
    pass "systemd-analyze verify: no complaints"
  else
    fail "systemd-analyze verify (exit $status):"
  fi
  if [ -n "$out" ]; then printf '%s\n' "$out" | sed 's/^/      /'; fi
else
  echo "skip  systemd-analyze is not installed: only the rules below are checked"
fi

# The rules, plus the consistency checks across files, in node (the yaml package is a dependency of the app).
node --input-type=module - <<'NODE' || failures=$((failures + 1))
import { readFileSync, existsSync } from 'node:fs';
import { parse } from 'yaml';

let failed = 0;
const pass = (what) => console.log(`ok    ${what}`);
const fail = (what) => { console.log(`FAIL  ${what}`); failed++; };
const check = (ok, what) => (ok ? pass(what) : fail(what));

// What `npm start` runs: node flags and MALLOC_* defaults, read from package.json so the files cannot drift.
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const start = pkg.scripts.start;
const nodeArgs = start.slice(start.indexOf('exec node ') + 'exec node '.length).trim().split(/\s+/);
const malloc = Object.fromEntries([...start.matchAll(/(MALLOC_[A-Z_]+)=\$\{\1:-([^}]+)\}/g)].map((m) => [m[1], m[2]]));
if (nodeArgs.length < 2 || Object.keys(malloc).length === 0) fail(`could not read node flags and MALLOC_* from the start script: ${start}`);

// ---------- systemd unit
const unit = readFileSync('deploy/threadwise.service', 'utf8');
const directives = unit.split('\n').filter((l) => /^[A-Za-z]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]);
const all = (key) => directives.filter(([k]) => k === key).map(([, v]) => v);
const one = (key) => all(key).at(-1);
check(one('User') && !['root', '0'].includes(one('User')), `User= is a dedicated user (${one('User')})`);
check(one('WorkingDirectory')?.startsWith('/'), `WorkingDirectory= is absolute (${one('WorkingDirectory')})`);
check(all('EnvironmentFile').length > 0, `EnvironmentFile= is set (${all('EnvironmentFile').join(', ')})`);
check(one('Restart') === 'on-failure', 'Restart=on-failure');
check(one('NoNewPrivileges') === 'yes', 'NoNewPrivileges=yes');
check(one('ProtectSystem') === 'strict', 'ProtectSystem=strict');
const env = Object.fromEntries(all('Environment').flatMap((v) => v.split(/\s+/)).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const writable = all('ReadWritePaths').flatMap((v) => v.split(/\s+/));
const dataDir = env.DATA_DIR;
check(dataDir && writable.some((p) => dataDir === p || dataDir.startsWith(`${p}/`)), `DATA_DIR (${dataDir}) is under ReadWritePaths= (${writable.join(' ')})`);
const nice = one('Nice');
check(nice === undefined || Number(nice) >= 0, `no Nice= raising priority (${nice ?? 'unset'})`);
check(!all('CPUSchedulingPolicy').some((v) => /fifo|rr/i.test(v)), 'no real-time CPUSchedulingPolicy=');
check(one('MemoryDenyWriteExecute') !== 'yes', 'no MemoryDenyWriteExecute=yes (V8 needs JIT memory)');
const stopSeconds = parseInt(one('TimeoutStopSec') ?? '90', 10);
check(stopSeconds > 25, `TimeoutStopSec= (${stopSeconds} s) is longer than SHUTDOWN_GRACE_SECONDS' default 25 s`);
check(one('ExecStartPre')?.split(/\s+/).slice(1).join(' ') === pkg.scripts.prestart.replace(/^node /, ''), `ExecStartPre= runs the prestart script (${pkg.scripts.prestart})`);
const execStart = one('ExecStart')?.split(/\s+/) ?? [];
check(execStart[0]?.endsWith('/node') && execStart.slice(1).join(' ') === nodeArgs.join(' '), `ExecStart= runs node with the start script's arguments (${nodeArgs.join(' ')})`);
for (const [name, value] of Object.entries(malloc)) check(env[name] === value, `Environment=${name}=${value} as in the start script`);

// ---------- Dockerfile
console.log('== deploy/Dockerfile');
const dockerfile = readFileSync('deploy/Dockerfile', 'utf8').replace(/\\\n/g, ' ');
const instructions = dockerfile.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((l) => {
  const [word, ...rest] = l.split(/\s+/);
  return { op: word.toUpperCase(), args: rest.join(' ') };
});
const ops = (op) => instructions.filter((i) => i.op === op);
const from = ops('FROM')[0]?.args.split(/\s+/)[0] ?? '';
check(/^(docker\.io\/)?(library\/)?node:\d+(\.\d+){0,2}(-[a-z0-9.-]+)?(@sha256:[0-9a-f]{64})?$/.test(from), `FROM is the official Node image with a version (${from})`);
check(/^(docker\.io\/)?(library\/)?node:20\b/.test(from), 'FROM is Node 20, as package.json engines allow');
const user = ops('USER').at(-1)?.args.split(':')[0];
check(user && !['root', '0'].includes(user), `the last USER is not root (${user ?? 'none'})`);
const health = ops('HEALTHCHECK')[0]?.args ?? '';
check(health.includes('/healthz'), 'HEALTHCHECK probes /healthz');
check(!ops('ADD').some((i) => /https?:\/\//.test(i.args)), 'no ADD of a remote URL');
check(ops('ADD').length === 0, 'COPY, not ADD');
const runs = ops('RUN').map((i) => i.args).join(' && ');
if (/--omit=dev|--production/.test(runs)) check(Boolean(pkg.dependencies?.tsx && pkg.dependencies?.esbuild), 'npm ci --omit=dev keeps tsx and esbuild (runtime dependencies in package.json)');
const builtFrom = nodeArgs.at(-1);
check(!builtFrom.startsWith('dist/') || /node scripts\/build\.mjs/.test(runs), `the image builds ${builtFrom} (RUN node scripts/build.mjs)`);
check(/npm ci\b/.test(runs), 'installs with npm ci (the committed lockfile)');
const cmd = JSON.parse(ops('CMD').at(-1)?.args ?? 'null');
check(Array.isArray(cmd) && cmd[0] === 'node' && cmd.slice(1).join(' ') === nodeArgs.join(' '), `CMD is exec form and runs node with the start script's arguments`);
const envLine = ops('ENV').map((i) => i.args).join(' ');
for (const [name, value] of Object.entries(malloc)) check(envLine.includes(`${name}=${value}`), `ENV ${name}=${value} as in the start script`);
const dockerDataDir = /DATA_DIR=(\S+)/.exec(envLine)?.[1];
check(dockerDataDir && ops('VOLUME').some((i) => i.args.includes(dockerDataDir)), `DATA_DIR (${dockerDataDir}) is a VOLUME`);
// Each COPY source exists and is let through by Dockerfile.dockerignore (an allowlist: "*" then "!name").
const ignore = readFileSync('deploy/Dockerfile.dockerignore', 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const allowed = new Set(ignore.filter((l) => l.startsWith('!')).map((l) => l.slice(1).replace(/\/\*\*$/, '')));
check(ignore[0] === '*', 'Dockerfile.dockerignore starts by excluding everything');
for (const copy of ops('COPY')) {
  const parts = copy.args.split(/\s+/).filter((p) => !p.startsWith('--'));
  for (const source of parts.slice(0, -1)) {
    check(existsSync(source) && allowed.has(source.replace(/\/$/, '')), `COPY ${source}: exists and is not ignored`);
  }
}
check(!allowed.has('.env'), '.env is never sent to the build');

// ---------- compose.yaml
console.log('== deploy/compose.yaml');
const compose = parse(readFileSync('deploy/compose.yaml', 'utf8'));
const { bot, postgres } = compose.services ?? {};
check(bot && postgres, 'services bot and postgres');
check(/^postgres:15(\.|$|-)/.test(postgres?.image ?? ''), `postgres image is postgres:15 (${postgres?.image})`);
const pgTest = [].concat(postgres?.healthcheck?.test ?? []).join(' ');
check(pgTest.includes('pg_isready'), 'postgres has a pg_isready healthcheck');
check(bot?.depends_on?.postgres?.condition === 'service_healthy', 'bot depends_on postgres with condition service_healthy');
const dockerfilePath = `deploy/${bot?.build?.context ?? '.'}/${bot?.build?.dockerfile ?? 'Dockerfile'}`;
check(existsSync(dockerfilePath), `bot builds ${bot?.build?.dockerfile} in context ${bot?.build?.context}`);
const envFiles = [].concat(bot?.env_file ?? []).map((f) => (typeof f === 'string' ? f : f.path));
check(envFiles.some((f) => /(^|\/)\.env$/.test(f)), `bot reads an env_file .env (${envFiles.join(', ')})`);
const pgEnv = postgres?.environment ?? {};
const url = bot?.environment?.DATABASE_URL ?? '';
const expand = (s) => String(s).replace(/\$\{(\w+):-([^}]*)\}/g, (_, name, fallback) => process.env[name] ?? fallback);
let parsed;
try { parsed = new URL(expand(url)); } catch { parsed = undefined; }
check(parsed && /^postgres(ql)?:$/.test(parsed.protocol) && parsed.hostname === 'postgres' && parsed.port === '5432',
  `DATABASE_URL points at the postgres service (${url.replace(/(\/\/[^:/]+:).*@/, '$1***@')})`);
check(parsed && parsed.username === pgEnv.POSTGRES_USER && parsed.pathname === `/${pgEnv.POSTGRES_DB}` && decodeURIComponent(parsed.password) === expand(pgEnv.POSTGRES_PASSWORD),
  'DATABASE_URL uses POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB');
check(bot?.init === true, 'bot runs with init: true');
const grace = /^(\d+)s$/.exec(bot?.stop_grace_period ?? '')?.[1];
check(grace && Number(grace) > 25, `bot stop_grace_period (${bot?.stop_grace_period}) is longer than 25 s`);
const botPort = bot?.environment?.PORT;
check((bot?.ports ?? []).some((p) => String(p).split('#')[0].trim().endsWith(`:${botPort}`)), `bot publishes its PORT (${botPort})`);
const named = (svc) => (svc?.volumes ?? []).map((v) => String(v).split(':')[0]).filter((v) => !v.startsWith('.') && !v.startsWith('/'));
for (const volume of [...named(bot), ...named(postgres)]) check(compose.volumes && volume in compose.volumes, `volume ${volume} is declared`);

process.exit(failed ? 1 : 0);
NODE

echo
if [ "$failures" -eq 0 ]; then
  echo "deploy/check.sh: every check passed"
else
  echo "deploy/check.sh: $failures check group(s) failed"
  exit 1
fi
