/**
 * Where the bot token may go. A Slack file URL needs the token, and a token sent anywhere else is a leaked token,
 * so every request that carries it (the first one and each redirect) is checked here first.
 */

const SLACK_DOMAINS = ['slack.com', 'slack-edge.com'];

/**
 * True for Slack's own file hosts over https (files.slack.com, *.slack.com, *.slack-edge.com), for the host of the
 * configured SLACK_API_URL (a proxy, or the fake Slack on 127.0.0.1:PORT in tests) with its own scheme, and for
 * that host's subdomains over https when it is a domain name — GovSlack serves files from files.slack-gov.com.
 */
export function isSlackFileHost(url: URL, apiUrl: string): boolean {
  const api = new URL(apiUrl);
  if (url.host === api.host && url.protocol === api.protocol) return true;
  if (url.protocol !== 'https:' || url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  const domains = isDomainName(api.hostname) ? [...SLACK_DOMAINS, api.hostname.toLowerCase()] : SLACK_DOMAINS;
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

function isDomainName(hostname: string): boolean {
  // IPs and single-label names (localhost) have no subdomains worth trusting.
  return hostname.includes('.') && !/^[\d.]+$/.test(hostname) && !hostname.startsWith('[');
}
