/**
 * Before Bolt starts: can Slack be reached, and does it take our tokens? Bolt's own first calls retry for a long
 * time and then report any failure as the token's fault ("invalid_auth" for an unreachable host after 14 s of
 * "http request failed"); here one short, quiet attempt tells the three cases apart, each as a sentence naming the
 * variable to fix.
 */
import { WebClient, LogLevel, type Logger as SlackLogger } from '@slack/web-api';
import { StartupError } from './startup-error';
import { causesOf, codeOf, messageOf, slackErrorCode } from '../core/errors';

const quiet: SlackLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

/** Slack's answers that mean "this token is not (or no longer) good". */
const REFUSED_TOKEN = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'not_allowed_token_type']);

export async function checkSlackTokens(options: { apiUrl: string; botToken: string; appToken?: string; timeoutMs?: number }): Promise<void> {
  const client = new WebClient(undefined, {
    slackApiUrl: options.apiUrl,
    logger: quiet,
    // One retry, quickly: a flaky first packet is not an outage, and the sentence should come within seconds.
    retryConfig: { retries: 1, factor: 1, minTimeout: 500, maxTimeout: 500 },
    timeout: options.timeoutMs ?? 10_000,
    rejectRateLimitedCalls: false,
  });
  try {
    await client.auth.test({ token: options.botToken });
  } catch (error) {
    throw describe(error, 'SLACK_BOT_TOKEN', options.apiUrl, 'copy the Bot User OAuth Token (xoxb-…) again from your Slack app’s OAuth & Permissions page, or reinstall the app');
  }
  if (!options.appToken) return;
  try {
    // The call Socket Mode starts with; the URL it returns expires unused.
    await client.apps.connections.open({ token: options.appToken });
  } catch (error) {
    throw describe(error, 'SLACK_APP_TOKEN', options.apiUrl, 'generate an app-level token with the connections:write scope under Basic Information → App-Level Tokens, or unset it for HTTP mode');
  }
}

function describe(error: unknown, variable: string, apiUrl: string, fix: string): StartupError {
  const code = slackErrorCode(error);
  if (code && REFUSED_TOKEN.has(code)) return new StartupError(`Slack refused ${variable} (${code}): ${fix}.`);
  if (code) return new StartupError(`Slack answered ${variable}’s check with "${code}" at ${apiUrl}: ${fix}.`);
  const status = (error as { statusCode?: number }).statusCode;
  if (status) {
    return new StartupError(`Slack at ${apiUrl} answered HTTP ${status}, not the Web API: check SLACK_API_URL (e.g. https://slack.com/api/) and any proxy in between.`);
  }
  const reason = networkCode(error);
  if (reason === 'bad port') {
    // fetch's own refusal, before any connection: ports it keeps for other protocols (1, 22, 25, 6000…).
    return new StartupError(`could not reach Slack at ${apiUrl}: Node refuses to connect to port ${portOf(apiUrl)}, which is reserved for another protocol; use another port in SLACK_API_URL.`);
  }
  return new StartupError(
    `could not reach Slack at ${apiUrl} (${reason}): check SLACK_API_URL and that this machine can reach it (DNS, proxy, firewall); Slack did not refuse anything.`,
  );
}

function portOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  } catch {
    return 'given';
  }
}

/** The innermost cause's code (ECONNREFUSED, ENOTFOUND…), or its message ("bad port"). */
function networkCode(error: unknown): string {
  const chain = causesOf(error, (e: any) => e.original ?? e.cause);
  return chain.map(codeOf).find((code) => code !== undefined && !code.startsWith('slack_')) ?? messageOf(chain.at(-1) ?? error);
}
