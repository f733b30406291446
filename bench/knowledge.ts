/**
 * Beyond the thread: search_messages over a generated workspace history. 100,000 messages of everyday chatter over
 * 20 channels and 30 days (deploys, reviews, tickets, passwords reset, meetings moved — the words real decisions use
 * too) with 30 decisions and facts hidden among them, each asked about in other words than it was written
 * (paraphrased, and for some in another language with the model's translated phrasing beside it, as the tool's
 * description asks). PGlite in an on-disk temp dir, as a single-process deployment runs it.
 *
 * - knowledge.search_p50_ms: one search_messages search (access filter, ranking, hits with snippets) over the 100,000;
 *   knowledge.search_p50_cpu_ms the CPU time it took (PGlite runs in this process), which a busy machine inflates less.
 * - knowledge.index_mb_per_10k_messages: indexed_messages with its indexes, per 10,000 messages.
 * - knowledge.recall_at_5: share of the questions whose message is among the first five hits, searched as the tool is
 *   called (the question plus the model's phrasing); knowledge.recall_at_5_as_asked with the question alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/app/database/open-database';
import { indexMessages, noteChannel, type MessageToIndex } from '../src/knowledge/message-index';
import { searchMessages } from '../src/knowledge/search-messages';
import type { KnowledgeDirectory } from '../src/knowledge/directory';
import { rowsOf, type DatabaseHandle } from '../src/store/database';
import { seededRandom, type Random } from '../test/support/seeded-random';
import type { BenchFigure, BenchSuite } from './figures';

const MESSAGES = 100_000;
const CHANNELS = 20;
const DAYS = 30;
const TEAM = 'T0BENCH';
const NOW = Date.UTC(2026, 10, 24, 9, 0, 0);

interface Fact {
  text: string;
  /** The question as a person asks it, in other words. */
  question: string;
  /**
   * The model's extra phrasings, as search_messages asks for them: the words people would have used, or the question
   * in the language the messages are written in. Written as a model would, from the question alone.
   */
  queries: string[];
}

/** Decisions and facts, each asked about in other words (several across languages). */
const FACTS: Fact[] = [
  { text: 'Decision: we rotate the staging database password every 30 days, Ana owns the rotation.', question: 'how often does the staging DB password get rotated?', queries: ['rotate staging database password schedule'] },
  { text: 'Payments on-call this quarter is Marek, escalate to Priya if he does not answer within 15 minutes.', question: 'who is on call for payments right now?', queries: ['payments on-call rotation escalation'] },
  { text: 'We agreed to move the Kafka cluster upgrade to the first weekend of December.', question: 'when is the kafka upgrade happening?', queries: ['kafka cluster upgrade date scheduled moved'] },
  { text: 'The VPN certificate expires on 14 January; IT renews it in the first week of the year.', question: 'when does our VPN cert expire?', queries: ['VPN certificate expiry date renewal'] },
  { text: 'Customer Globex gets a 12% discount on the enterprise plan, approved by Laura.', question: 'what discount did we give Globex?', queries: ['Globex discount percentage approved'] },
  { text: 'Final call: invoices above 10,000 EUR need a second approver from finance.', question: 'do big invoices need another approval?', queries: ['invoice second approver finance threshold'] },
  { text: 'The root cause of Tuesday outage was an expired TLS certificate on the internal load balancer.', question: 'what caused the outage on tuesday?', queries: ['tuesday outage root cause'] },
  { text: 'We are deprecating the v1 search API on March 31; clients must move to v2 before then.', question: 'deadline for migrating off the old v1 search endpoint?', queries: ['v1 search API deprecation date migrate to v2'] },
  { text: 'Decided: feature flags older than 90 days get removed in the monthly cleanup.', question: 'what is the policy for removing stale feature flags?', queries: ['old feature flags removed cleanup days'] },
  { text: 'Backups of the orders database are kept for 35 days in the eu-west bucket.', question: 'how long do we keep backups of orders DB?', queries: ['orders database backups retention days kept'] },
  { text: 'The design review for the onboarding flow is every second Wednesday at 15:00 in room Fjord.', question: 'when is the onboarding design review held?', queries: ['onboarding flow design review schedule time'] },
  { text: 'Support escalations for enterprise tickets go to the #support-tier2 rotation, not to engineering directly.', question: 'where should enterprise support escalations be sent?', queries: ['enterprise support ticket escalation rotation channel'] },
  { text: 'We chose Postgres over MongoDB for the ledger service because we need transactions.', question: 'why did the ledger service pick postgres instead of mongo?', queries: ['ledger service postgres mongodb choice transactions'] },
  { text: 'Laptop refresh: engineers get a new machine every three years, request it through the IT portal.', question: 'how often can engineers replace their laptops?', queries: ['laptop refresh replacement engineers years'] },
  { text: 'The mobile release train leaves every other Thursday; the code freeze is the Monday before.', question: 'when is the code freeze for mobile releases?', queries: ['mobile release train code freeze day'] },
  { text: 'Max upload size for customer attachments is 25 MB, larger files go through the SFTP drop.', question: 'what is the largest attachment a customer can upload?', queries: ['maximum upload size customer attachments MB'] },
  { text: 'The staging environment is reset every Sunday night at 02:00 UTC, so do not keep test data there.', question: 'does the staging env get wiped regularly?', queries: ['staging environment reset wiped schedule'] },
  { text: 'Gdpr deletion requests must be completed within 30 days; the privacy team tracks them in Jira project PRIV.', question: 'deadline for handling GDPR erasure requests?', queries: ['GDPR deletion requests deadline days privacy'] },
  { text: 'We standardised on pnpm for all frontend repositories starting this sprint.', question: 'which package manager do frontend repos use now?', queries: ['frontend repositories package manager pnpm yarn npm'] },
  { text: 'Interview loop for backend roles: one coding round, one system design round and one values interview.', question: 'what rounds are in the backend interview process?', queries: ['backend interview loop rounds coding system design'] },
  { text: 'The holiday party is on 12 December at the Brauhaus on Lindenstraße, plus-ones welcome.', question: 'where is the christmas party this year?', queries: ['holiday party location December'] },
  { text: 'Decision: the public status page is updated by the incident commander within 10 minutes of declaring an incident.', question: 'who updates the status page during incidents and how fast?', queries: ['incident commander status page update minutes'] },
  { text: 'API rate limit for the free tier is 60 requests per minute per token.', question: 'what rate limit applies to free plan API tokens?', queries: ['free tier API rate limit requests per minute'] },
  { text: 'Wir haben beschlossen, die Datenbank-Sicherungen jede Nacht um drei Uhr laufen zu lassen.', question: 'when do the nightly database backups run?', queries: ['Wann laufen die nächtlichen Datenbank-Sicherungen?'] },
  { text: 'Die Kündigungsfrist für Lieferantenverträge beträgt drei Monate zum Quartalsende.', question: 'what is the notice period for supplier contracts?', queries: ['Kündigungsfrist Lieferantenverträge'] },
  { text: 'Das Team Zahlungen übernimmt ab Januar auch die Rechnungsstellung.', question: 'which team takes over invoicing in January?', queries: ['welches Team übernimmt die Rechnungsstellung ab Januar'] },
  { text: 'The new office wifi password is printed on the card at the reception desk, ask Jonas if it is missing.', question: 'Wo finde ich das WLAN-Passwort im Büro?', queries: ['where is the office wifi password'] },
  { text: 'Expense reports must be submitted by the 5th of the following month in Pleo.', question: 'Bis wann müssen Spesenabrechnungen eingereicht werden?', queries: ['deadline to submit expense reports'] },
  { text: 'La réunion trimestrielle avec le client Initech est déplacée au 9 décembre.', question: 'when is the quarterly meeting with Initech now?', queries: ['réunion trimestrielle Initech déplacée'] },
  { text: 'Security training is mandatory for everyone before the end of Q1, the link is in the handbook.', question: 'Ist das Sicherheitstraining Pflicht?', queries: ['is security training mandatory'] },
];

/** Services and tools people talk about: a workspace's vocabulary is wide, so most pairs of them are rare. */
const COMPONENTS = [
  'checkout', 'ledger', 'search', 'auth', 'billing', 'orders', 'gateway', 'notifications', 'inventory', 'reports', 'onboarding', 'mobile', 'web', 'kafka', 'redis',
  'postgres', 'staging', 'prod', 'dashboard', 'pipeline', 'scheduler', 'exporter', 'importer', 'payments', 'catalog', 'profile', 'sso', 'vpn', 'wiki', 'crm',
  'atlas', 'beacon', 'comet', 'delta', 'ember', 'falcon', 'geyser', 'harbor', 'iris', 'juniper', 'kestrel', 'lumen', 'meridian', 'nebula', 'orbit', 'pulsar',
  'quartz', 'raven', 'sierra', 'tundra', 'umbra', 'vortex', 'willow', 'xenon', 'yarrow', 'zephyr', 'elasticsearch', 'rabbitmq', 'terraform', 'kubernetes', 'helm',
  'grafana', 'prometheus', 'sentry', 'datadog', 'jenkins', 'argocd', 'vault', 'consul', 'nginx', 'envoy', 'istio', 'airflow', 'spark', 'snowflake', 'looker',
  'segment', 'stripe', 'twilio', 'sendgrid', 'zendesk', 'salesforce', 'hubspot', 'okta', 'cloudflare', 'fastly', 'lambda', 's3', 'cdn', 'dns', 'ios', 'android',
  'frontend', 'backend', 'graphql', 'rest', 'grpc', 'webhooks', 'cron', 'etl', 'warehouse', 'ml', 'recommendations', 'pricing', 'tax', 'shipping', 'returns',
  'loyalty', 'coupons', 'cart', 'wishlist', 'reviews', 'chat', 'email', 'sms', 'push', 'analytics', 'experiments', 'flags', 'admin', 'partner', 'marketplace',
];
const PEOPLE = ['Ana', 'Marek', 'Priya', 'Laura', 'Jonas', 'Chen', 'Omar', 'Sofia', 'Yuki', 'Lars', 'Fatima', 'Diego', 'Mira', 'Tom', 'Ines'];
const THINGS = [
  'password', 'certificate', 'deploy', 'release', 'backup', 'migration', 'dashboard', 'alert', 'ticket', 'invoice', 'discount', 'flag', 'upgrade', 'rollback',
  'cluster', 'token', 'limit', 'review', 'meeting', 'report', 'schema', 'index', 'query', 'cache', 'queue', 'worker', 'endpoint', 'config', 'secret', 'quota',
  'build', 'test', 'lint', 'bundle', 'image', 'container', 'node', 'pod', 'volume', 'snapshot', 'replica', 'shard', 'partition', 'topic', 'consumer', 'producer',
  'retry', 'timeout', 'latency', 'throughput', 'budget', 'forecast', 'roadmap', 'spec', 'runbook', 'postmortem', 'oncall', 'handover', 'estimate', 'demo',
];
const TEMPLATES: Array<(r: Random) => string> = [
  (r) => `can someone review my PR for the ${pick(r, COMPONENTS)} ${pick(r, THINGS)}? ${ticket(r)}`,
  (r) => `${pick(r, COMPONENTS)} ${pick(r, ['deploy', 'release', 'rollback'])} finished, ${Math.floor(r() * 40) + 2} pods healthy`,
  (r) => `reminder: ${pick(r, ['standup', 'retro', 'planning', 'demo', 'sync'])} moved to ${Math.floor(r() * 9) + 9}:${pick(r, ['00', '15', '30', '45'])} today`,
  (r) => `anyone seen ${pick(r, ['timeouts', '502s', 'OOM kills', 'slow queries', 'flaky tests'])} in ${pick(r, COMPONENTS)} logs? ${ticket(r)}`,
  (r) => `I reset my ${pick(r, ['jira', 'vpn', 'laptop', 'github', 'grafana', 'aws'])} password, works now`,
  (r) => `thanks ${pick(r, PEOPLE)}! that fixed the ${pick(r, COMPONENTS)} ${pick(r, THINGS)}`,
  (r) => `the ${pick(r, COMPONENTS)} ${pick(r, ['dashboard', 'graph', 'latency', 'error rate'])} looks ${pick(r, ['fine', 'weird', 'spiky', 'better', 'worse'])} today`,
  (r) => `${pick(r, PEOPLE)} is out ${pick(r, ['today', 'tomorrow', 'until Monday', 'this week'])}, ping ${pick(r, PEOPLE)} for ${pick(r, COMPONENTS)} questions`,
  (r) => `opened ${ticket(r)} for the ${pick(r, COMPONENTS)} ${pick(r, THINGS)}, will look after lunch`,
  (r) => `lgtm, merging the ${pick(r, COMPONENTS)} ${pick(r, THINGS)} change`,
  (r) => `is the ${pick(r, COMPONENTS)} ${pick(r, THINGS)} still blocked on ${pick(r, PEOPLE)}?`,
  (r) => `${pick(r, ['Morgen', 'Heute', 'Gleich'])} ist das ${pick(r, ['Meeting', 'Review', 'Deployment'])} für ${pick(r, COMPONENTS)}, bitte die Tickets aktualisieren`,
  (r) => `quick question about the ${pick(r, COMPONENTS)} ${pick(r, THINGS)}: do we need approval for this?`,
  (r) => `${pick(r, ['🎉', '🚀', '👀', '🙏'])} ${pick(r, COMPONENTS)} ${pick(r, THINGS)} is done`,
];

export const knowledgeSuite: BenchSuite = {
  name: 'knowledge',
  async run() {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'threadwise-bench-knowledge-'));
    const handle = await openDatabase({ driver: 'pglite', dataDir });
    try {
      return await measure(handle);
    } finally {
      await handle.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};

async function measure(handle: DatabaseHandle): Promise<BenchFigure[]> {
  const db = handle.db;
  const random = seededRandom(27);
  const channels = Array.from({ length: CHANNELS }, (_, i) => `C0BENCH${String(i).padStart(2, '0')}`);
  for (const [i, channelId] of channels.entries()) await noteChannel(db, { teamId: TEAM, channelId, kind: 'channel', name: `channel-${i}` });

  // Facts sit at random places in the history; the rest is chatter.
  const factAt = new Map<number, number>();
  while (factAt.size < FACTS.length) {
    const position = Math.floor(random() * MESSAGES);
    if (!factAt.has(position)) factAt.set(position, factAt.size);
  }
  const factKey = new Map<number, string>();
  const started = performance.now();
  let batch: MessageToIndex[] = [];
  for (let i = 0; i < MESSAGES; i += 1) {
    const channelId = pick(random, channels);
    const ms = NOW - Math.floor(random() * DAYS * 24 * 60 * 60_000);
    const ts = `${Math.floor(ms / 1000)}.${String(i % 1_000_000).padStart(6, '0')}`;
    const fact = factAt.get(i);
    const text = fact === undefined ? pick(random, TEMPLATES)(random) : FACTS[fact]!.text;
    if (fact !== undefined) factKey.set(fact, `${channelId}/${ts}`);
    batch.push({ teamId: TEAM, channelId, ts, userId: `U0P${Math.floor(random() * 40)}`, text });
    if (batch.length === 1_000) {
      await indexMessages(db, batch);
      batch = [];
    }
  }
  if (batch.length) await indexMessages(db, batch);
  const indexSeconds = (performance.now() - started) / 1000;
  await db.execute(sql`analyze indexed_messages`);

  const [size] = rowsOf<{ bytes: number | string; n: number | string }>(
    await db.execute(sql`select pg_total_relation_size('indexed_messages') as bytes, (select count(*) from indexed_messages) as n`),
  );
  const mbPer10k = Number(size!.bytes) / 1_048_576 / (Number(size!.n) / 10_000);

  const directory = publicDirectory();
  const asker = { teamId: TEAM, userId: 'U0ASKER' };
  const search = (fact: Fact, asAsked = false) =>
    searchMessages(db, directory, { asker, queries: asAsked ? [fact.question] : [fact.question, ...fact.queries], limit: 5 });
  const found = async (fact: Fact, i: number, asAsked: boolean) => {
    const result = await search(fact, asAsked);
    return result.kind === 'hits' && result.hits.some((h) => `${h.channelId}/${h.ts}` === factKey.get(i));
  };
  // Warm-up: the first statements plan and load the indexes.
  for (const fact of FACTS.slice(0, 3)) await search(fact);

  const latencies: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    for (const fact of FACTS) {
      const began = performance.now();
      const usage = process.cpuUsage();
      await search(fact);
      const used = process.cpuUsage(usage);
      latencies.push(performance.now() - began);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  const missed: string[] = [];
  let hits = 0;
  let hitsAsAsked = 0;
  for (const [i, fact] of FACTS.entries()) {
    if (await found(fact, i, false)) hits += 1;
    else missed.push(fact.question);
    if (await found(fact, i, true)) hitsAsAsked += 1;
  }
  return [
    { key: 'knowledge.search_p50_ms', value: percentile(latencies, 0.5), unit: 'ms', target: '< 50', note: `${latencies.length} searches over ${formatThousands(Number(size!.n))} messages in ${CHANNELS} channels` },
    { key: 'knowledge.search_p95_ms', value: percentile(latencies, 0.95), unit: 'ms' },
    { key: 'knowledge.search_p50_cpu_ms', value: percentile(cpu, 0.5), unit: 'ms', note: `CPU time of one search; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores during the run` },
    { key: 'knowledge.index_mb_per_10k_messages', value: mbPer10k, unit: 'MB', note: `indexed_messages with its indexes; indexing took ${indexSeconds.toFixed(1)} s` },
    {
      key: 'knowledge.recall_at_5',
      value: hits / FACTS.length,
      unit: '',
      target: '≥ 0.9',
      note: `${FACTS.length} paraphrased questions (7 across languages), each with the model's extra phrasing as search_messages asks for it${missed.length ? `; missed: ${missed.join(' | ')}` : ''}`,
    },
    { key: 'knowledge.recall_at_5_as_asked', value: hitsAsAsked / FACTS.length, unit: '', note: 'the question alone, as a model that does not rephrase passes it on' },
  ];
}

/** Every channel public and in the asker's workspace: the access check costs what a cached one does. */
function publicDirectory(): KnowledgeDirectory {
  return {
    channel: async (id) => ({ id, name: id.toLowerCase(), isPublic: true, isDirect: false }),
    isMember: async () => false,
    membership: async () => false,
    userName: async (id) => id,
    permalink: async (channel, ts) => `https://bench.slack.com/archives/${channel}/p${ts.replace('.', '')}`,
    onMembershipEvent: () => undefined,
  };
}

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function ticket(random: Random): string {
  return `${pick(random, ['OPS', 'WEB', 'PAY', 'CORE'])}-${Math.floor(random() * 9000) + 1000}`;
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

function formatThousands(n: number): string {
  return n.toLocaleString('en-US');
}
