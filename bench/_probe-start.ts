import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeSlack } from '../test/fakes/fake-slack';
import { startFakeOpenAI } from '../test/fakes/fake-openai';
const slack = await startFakeSlack({ botName: 'threadwise' });
const model = await startFakeOpenAI();
const dataDir = process.argv[2] ?? await mkdtemp(path.join(tmpdir(), 'tw-probe-'));
const t0 = Date.now();
const child = spawn(process.env.PROBE_CMD ? 'node' : 'npm', process.env.PROBE_CMD ? JSON.parse(process.env.PROBE_CMD) : ['start'], { env: { ...process.env, PORT: '39123', SLACK_BOT_TOKEN: slack.botToken, SLACK_SIGNING_SECRET: 's', SLACK_API_URL: slack.apiUrl, OPENAI_API_KEY: 'sk-bench-start-0123456789', OPENAI_BASE_URL: model.url, OPENAI_MODEL: 'gpt-4.1-mini', DATA_DIR: dataDir, ...(process.env.PROBE_EXTRA ? JSON.parse(process.env.PROBE_EXTRA) : {}) }, stdio: ['ignore', 'pipe', 'pipe'] });
child.stderr.on('data', (d) => { for (const l of String(d).split('\n').filter(Boolean)) console.log(Date.now() - t0, l.slice(0, 160)); });
child.stdout.on('data', (d) => { for (const l of String(d).split('\n').filter(Boolean)) console.log(Date.now() - t0, 'OUT', l.slice(0, 160)); });
for (;;) { try { const r = await fetch('http://127.0.0.1:39123/healthz'); if (r.status === 200) break; } catch {} await new Promise((r) => setTimeout(r, 50)); }
const f = (await import('node:fs')).readFileSync(`/proc/${child.pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
console.log(Date.now() - t0, 'HEALTHZ 200', dataDir, 'cpu ms', (Number(f[11]) + Number(f[12])) * 10, 'load', (await import('node:os')).loadavg()[0]);
await new Promise((r) => setTimeout(r, 5000));
{ const fs = await import('node:fs'); const tree = (pid: number): number[] => [pid, ...fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => { try { return fs.readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1] === String(pid); } catch { return false; } }).flatMap((d) => tree(Number(d)))];
  const pids = tree(child.pid!); let kb = 0; for (const p of pids) { try { kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0); console.log('  pid', p, fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 80), /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1]); } catch {} }
  console.log('RSS tree MB', Math.round(kb / 1024));
  const sm = fs.readFileSync(`/proc/${child.pid}/smaps`, 'utf8').split('\n'); const by = new Map<string, number>(); let name = '';
  for (const l of sm) { const h = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(l); if (h) { const n = h[1] || 'anon'; name = n.includes('node_modules') ? n.replace(/.*node_modules\//, 'nm:').split('/').slice(0, 2).join('/') : n; continue; } const r = /^Rss:\s+(\d+)/.exec(l); if (r) by.set(name, (by.get(name) ?? 0) + Number(r[1])); }
  console.log([...by].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([n, v]) => `${Math.round(v / 1024)} MB ${n}`).join('\n')); }
child.kill('SIGTERM'); await new Promise((r) => child.on('exit', r));
await slack.close(); await model.close();
