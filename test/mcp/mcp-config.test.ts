import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMcpConfig, parseMcpConfig, type McpConfig } from '../../src/mcp';

const env = { JIRA_TOKEN: 'jira-secret-token-1', GITHUB_TOKEN: 'ghp_secret_token_2', HOME: '/home/bot' };

function parse(document: unknown, environment: Record<string, string | undefined> = env) {
  return parseMcpConfig(JSON.stringify(document), environment, 'mcp.json');
}

function parsed(document: unknown): McpConfig {
  const result = parse(document);
  if (!result.ok) throw new Error(`expected a valid file, got: ${result.problems.join(' | ')}`);
  return result.config;
}

function problems(document: unknown, environment?: Record<string, string | undefined>): string[] {
  const result = parse(document, environment);
  if (result.ok) throw new Error('expected problems, the file was accepted');
  return result.problems;
}

describe('parseMcpConfig', () => {
  it('reads the example from the issue: an HTTP server with headers and a stdio server with env, with every extra setting', () => {
    const config = parsed({
      mcpServers: {
        jira: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${JIRA_TOKEN}' }, autoApprove: ['search_issues', 'get_issue'] },
        github: {
          command: 'npx',
          args: ['-y', 'some-github-mcp-server'],
          env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
          approval: 'ask',
          disabledTools: ['delete_repository'],
          channels: ['C0123ABC'],
          timeoutSeconds: 60,
        },
      },
    });
    expect(config.source).toBe('mcp.json');
    expect(config.servers).toEqual([
      {
        name: 'jira',
        transport: { kind: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer jira-secret-token-1' }, sseOnly: false },
        approval: 'ask',
        autoApprove: ['search_issues', 'get_issue'],
        disabledTools: [],
        timeoutMs: 60_000,
      },
      {
        name: 'github',
        transport: { kind: 'stdio', command: 'npx', args: ['-y', 'some-github-mcp-server'], env: { GITHUB_TOKEN: 'ghp_secret_token_2' } },
        approval: 'ask',
        autoApprove: [],
        disabledTools: ['delete_repository'],
        channels: ['C0123ABC'],
        timeoutMs: 60_000,
      },
    ]);
  });

  it('collects every header and env value as a secret, the credential after "Bearer" on its own too', () => {
    const config = parsed({
      mcpServers: {
        jira: { url: 'https://mcp.example.com/mcp?key=${JIRA_TOKEN}', headers: { Authorization: 'Bearer ${JIRA_TOKEN}', 'X-Team': 'platform' } },
        github: { command: 'npx', args: ['--home', '${HOME}'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } },
      },
    });
    expect(config.secrets).toEqual(expect.arrayContaining(['jira-secret-token-1', 'Bearer jira-secret-token-1', 'platform', 'ghp_secret_token_2']));
    // A variable whose name says nothing secret, expanded into arguments, is not treated as one.
    expect(config.secrets).not.toContain('/home/bot');
  });

  it('gives defaults, honours `${VAR:-default}`, skips "disabled" servers and accepts an empty file of servers', () => {
    const config = parsed({
      mcpServers: {
        local: { type: 'stdio', command: 'node', args: ['server.js', '--port=${PORT:-8080}'] },
        old: { url: 'http://localhost:9000/sse', type: 'sse', approval: 'auto' },
        off: { command: 'whatever', disabled: true },
      },
    });
    expect(config.servers.map((s) => s.name)).toEqual(['local', 'old']);
    expect(config.servers[0]).toMatchObject({ approval: 'ask', autoApprove: [], disabledTools: [], timeoutMs: 60_000 });
    expect(config.servers[0]!.transport).toEqual({ kind: 'stdio', command: 'node', args: ['server.js', '--port=8080'], env: {} });
    expect(config.servers[0]!.channels).toBeUndefined();
    expect(config.servers[1]).toMatchObject({ approval: 'auto', transport: { kind: 'http', sseOnly: true } });
    expect(parsed({ mcpServers: {} }).servers).toEqual([]);
  });

  it('reads trustAnnotations: off unless set to true, and only true or false', () => {
    const config = parsed({ mcpServers: { fs: { command: 'npx', trustAnnotations: true }, memory: { command: 'npx' }, off: { command: 'npx', trustAnnotations: false } } });
    expect(config.servers.map((s) => [s.name, s.trustAnnotations])).toEqual([
      ['fs', true],
      ['memory', undefined],
      ['off', undefined],
    ]);
    expect(problems({ mcpServers: { fs: { command: 'npx', trustAnnotations: 'yes' } } })).toEqual([
      'mcp.json: server "fs": "trustAnnotations" must be true (tools the server marks read-only run without asking) or false (got "yes")',
    ]);
  });

  it('names the variable and the server when a variable is not set', () => {
    expect(problems({ mcpServers: { jira: { url: 'https://x.example/mcp', headers: { Authorization: 'Bearer ${JIRA_TOKN}' } } } })).toEqual([
      'mcp.json: server "jira" uses ${JIRA_TOKN}, but JIRA_TOKN is not set; set it in the environment, or write ${NAME:-default} for a default',
    ]);
    expect(problems({ mcpServers: { gh: { command: 'npx', args: ['${A}'], env: { T: '${B}', U: '${A}' } } } }, {})).toEqual([
      'mcp.json: server "gh" uses ${A}, ${B}, but A, B are not set; set them in the environment, or write ${NAME:-default} for a default',
    ]);
  });

  it('refuses a file that is not JSON, with the line and column', () => {
    const result = parseMcpConfig('{\n  "mcpServers": {\n    "x": { "url": "https://a" }\n  \n', env, '/etc/threadwise/mcp.json');
    expect(result).toEqual({ ok: false, problems: [expect.stringMatching(/^\/etc\/threadwise\/mcp\.json is not valid JSON: .* at line \d+, column \d+$/)] });
    expect(parseMcpConfig('{"mcpServers": {},}', env, 'mcp.json')).toEqual({
      ok: false,
      problems: [expect.stringMatching(/^mcp\.json is not valid JSON: Expected double-quoted property name at line 1, column 19$/)],
    });
  });

  it('refuses a top level without mcpServers', () => {
    const expected = ['mcp.json must hold {"mcpServers": {"<name>": {…}, …}} at the top level, as other MCP clients’ .mcp.json does'];
    expect(problems({ servers: {} })).toEqual(expected);
    expect(problems([])).toEqual(expected);
    expect(problems({ mcpServers: [] })).toEqual(expected);
  });

  it('says what each setting must be, quoting the wrong value — except where it may be a secret', () => {
    expect(
      problems({
        mcpServers: {
          a: { url: 'https://a.example/mcp', timeoutSeconds: '60s', approval: 'sometimes', channels: ['general'], autoApprove: 'search' },
          b: { command: 'npx', args: ['-y', 42], env: { TOKEN: 12345 } },
          c: { url: 'https://c.example/mcp', headers: { 'Bad Header': 'v' } },
        },
      }),
    ).toEqual([
      'mcp.json: server "a": "approval" must be "ask" (every call waits for a person) or "auto" (calls run without asking) (got "sometimes")',
      'mcp.json: server "a": "autoApprove" must be a list of tool names (got "search")',
      'mcp.json: server "a": "channels" must be a list of Slack channel ids, e.g. ["C0123ABC"] (got "general") (at channels[0])',
      'mcp.json: server "a": "timeoutSeconds" must be a whole number of seconds from 1 to 3600 (got "60s")',
      'mcp.json: server "b": "args" must be a list of strings (at args[1])',
      'mcp.json: server "b": "env" must be an object of variable names to text, e.g. {"GITHUB_TOKEN": "${GITHUB_TOKEN}"} (at env.TOKEN)',
      'mcp.json: server "c": "headers" has a name that is not allowed (at headers.Bad Header); header names are letters, digits and -',
    ]);
  });

  it('refuses unknown settings and suggests the one meant', () => {
    expect(problems({ mcpServers: { jira: { url: 'https://a.example/mcp', autoAprove: ['x'], disabledtools: ['y'], colour: 'red' } } })).toEqual([
      'mcp.json: server "jira": unknown setting "autoAprove"; did you mean "autoApprove"?; unknown setting "disabledtools"; did you mean "disabledTools"?; unknown setting "colour"; known settings are "type", "url", "headers", "command", "args", "env", "cwd", "disabled", "approval", "autoApprove", "trustAnnotations", "disabledTools", "channels", "timeoutSeconds", "auth", "clientId", "clientSecret", "scopes"',
    ]);
  });

  it('needs exactly one of url and command, and settings that fit the one given', () => {
    expect(
      problems({
        mcpServers: {
          none: { approval: 'auto' },
          both: { url: 'https://a.example/mcp', command: 'npx' },
          httpWithEnv: { url: 'https://a.example/mcp', env: { A: 'b' } },
          stdioWithHeaders: { command: 'npx', headers: { A: 'b' } },
          wrongType: { command: 'npx', type: 'http' },
          stdioTypeWithUrl: { url: 'https://a.example/mcp', type: 'stdio' },
          notAnObject: 'npx server',
        },
      }),
    ).toEqual([
      'mcp.json: server "none": needs "url" (an HTTP server) or "command" (a program started over stdio)',
      'mcp.json: server "both": has both "url" and "command"; give "url" for an HTTP server or "command" for a program started over stdio, not both',
      'mcp.json: server "httpWithEnv": "env" applies only to "command" servers; for an HTTP server, pass credentials in "headers"',
      'mcp.json: server "stdioWithHeaders": "headers" apply only to "url" servers; for a command, pass credentials in "env"',
      'mcp.json: server "wrongType": says "type": "http" but gives a "command"; give a "url" for an HTTP server, or drop "type"',
      'mcp.json: server "stdioTypeWithUrl": says "type": "stdio" but gives a "url"; use "command" for a stdio server, or drop "type"',
      'mcp.json: server "notAnObject" must be an object with "url" (an HTTP server) or "command" (a program started over stdio)',
    ]);
  });

  it('refuses URLs that are not http(s), without printing a URL that may hold a token', () => {
    expect(problems({ mcpServers: { a: { url: 'ftp://files.example/${JIRA_TOKEN}' }, b: { url: 'not a url' } } })).toEqual([
      'mcp.json: server "a": "url" must start with http:// or https:// (it starts with ftp://)',
      'mcp.json: server "b": "url" is not a valid URL; write it like "https://mcp.example.com/mcp"',
    ]);
  });

  it('refuses server names the model could not tell apart or that leave no room for tool names', () => {
    expect(
      problems({
        mcpServers: {
          'my server': { command: 'a' },
          my_server: { command: 'b' },
          'a__b': { command: 'c' },
          '日本': { command: 'd' },
          ['x'.repeat(41)]: { command: 'e' },
        },
      }),
    ).toEqual([
      'mcp.json: server "my_server": the model would see it as "my_server", like server "my server"; rename one of them',
      'mcp.json: server "a__b": the name may not contain "__", which separates server and tool in tool names',
      'mcp.json: server "日本": the name needs at least one letter or digit (tools are named "<server>__<tool>")',
      `mcp.json: server "${'x'.repeat(41)}": the name is longer than 40 characters; shorten it so its tools’ names fit the model’s 64-character limit`,
    ]);
  });

  it('reports the problems of every server at once, one line each', () => {
    const found = problems({ mcpServers: { a: { url: 'https://a.example/mcp', timeoutSeconds: 0 }, b: { command: 'x', env: { T: '${NOPE}' } } } });
    expect(found).toHaveLength(2);
    for (const line of found) expect(line).not.toMatch(/\n/);
  });
});

describe('loadMcpConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threadwise-mcp-config-'));
    await mkdir(join(dir, 'with-default'));
    await mkdir(join(dir, 'empty'));
    await mkdir(join(dir, 'a-folder.json'));
    await writeFile(join(dir, 'with-default', 'mcp.json'), JSON.stringify({ mcpServers: { local: { command: 'node', args: ['s.js'] } } }));
    await writeFile(join(dir, 'custom.json'), JSON.stringify({ mcpServers: { jira: { url: 'https://j.example/mcp', headers: { Authorization: 'Bearer ${JIRA_TOKEN}' } } } }));
    await writeFile(join(dir, 'broken.json'), '{"mcpServers": {"jira": {"url": 5}}}');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uses the file MCP_CONFIG names', async () => {
    const result = await loadMcpConfig({ path: 'custom.json', env, cwd: dir });
    expect(result.ok && result.config.servers.map((s) => s.name)).toEqual(['jira']);
    expect(result.ok && result.config.source).toBe('custom.json');
  });

  it('falls back to ./mcp.json when it exists, and to no servers when it does not', async () => {
    const found = await loadMcpConfig({ env, cwd: join(dir, 'with-default') });
    expect(found.ok && found.config).toMatchObject({ source: './mcp.json', servers: [{ name: 'local' }] });
    expect(await loadMcpConfig({ env, cwd: join(dir, 'empty') })).toEqual({ ok: true, config: { servers: [], secrets: [] } });
    expect(await loadMcpConfig({ path: '  ', env, cwd: join(dir, 'empty') })).toEqual({ ok: true, config: { servers: [], secrets: [] } });
  });

  it('refuses a named file that is missing or a folder, and names the file in parse problems', async () => {
    expect(await loadMcpConfig({ path: 'nope.json', env, cwd: dir })).toEqual({
      ok: false,
      problems: [`MCP_CONFIG names nope.json, which does not exist (looked at ${join(dir, 'nope.json')}); fix the path or unset MCP_CONFIG`],
    });
    expect(await loadMcpConfig({ path: 'a-folder.json', env, cwd: dir })).toEqual({ ok: false, problems: ['a-folder.json is a folder; MCP_CONFIG must name a JSON file'] });
    expect(await loadMcpConfig({ path: 'broken.json', env, cwd: dir })).toEqual({
      ok: false,
      problems: ['broken.json: server "jira": "url" must be the server’s URL, e.g. "https://mcp.example.com/mcp"'],
    });
  });
});
