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
console.log(Date.now() - t0, 'HEALTHZ 200', dataDir);
await new Promise((r) => setTimeout(r, 3000));
child.kill('SIGTERM'); await new Promise((r) => child.on('exit', r));
await slack.close(); await model.close();
