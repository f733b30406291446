import { describe, expect, it } from 'vitest';
import { createClosers } from '../../src/core/closers';

describe('createClosers', () => {
  it('closes newest first, each once, however often closeAll is called', async () => {
    const closed: string[] = [];
    const closers = createClosers(() => {});
    closers.add('database', () => closed.push('database'));
    closers.add('mcp', async () => void closed.push('mcp'));
    closers.add('console', () => closed.push('console'));

    await Promise.all([closers.closeAll(), closers.closeAll()]);
    await closers.closeAll();

    expect(closed).toEqual(['console', 'mcp', 'database']);
  });

  it('reports a closer that fails and still runs the others', async () => {
    const closed: string[] = [];
    const failures: Array<[string, unknown]> = [];
    const closers = createClosers((name, error) => failures.push([name, error]));
    closers.add('database', () => closed.push('database'));
    closers.add('extractor', async () => {
      throw new Error('worker would not stop');
    });
    closers.add('skills', () => {
      throw new Error('watcher gone');
    });
    closers.add('console', () => closed.push('console'));

    await closers.closeAll();

    expect(closed).toEqual(['console', 'database']);
    expect(failures.map(([name, error]) => [name, (error as Error).message])).toEqual([
      ['skills', 'watcher gone'],
      ['extractor', 'worker would not stop'],
    ]);
  });

  it('on a start-up failure closes what was opened so far and rethrows the start-up’s error, not a closer’s', async () => {
    const closed: string[] = [];
    const closers = createClosers(() => {});
    const refused = new Error('Slack refused SLACK_BOT_TOKEN');

    const started = closers.closeOnFailure(async () => {
      closers.add('skills', () => closed.push('skills'));
      closers.add('database', () => {
        closed.push('database');
        throw new Error('already closed');
      });
      throw refused;
    });

    await expect(started).rejects.toBe(refused);
    expect(closed).toEqual(['database', 'skills']);
  });

  it('leaves everything open when the start-up succeeds', async () => {
    const closed: string[] = [];
    const closers = createClosers(() => {});
    const value = await closers.closeOnFailure(async () => {
      closers.add('database', () => closed.push('database'));
      return 42;
    });
    expect(value).toBe(42);
    expect(closed).toEqual([]);
    await closers.closeAll();
    expect(closed).toEqual(['database']);
  });

  it('refuses a part added while closing: it would never be closed', async () => {
    const closers = createClosers(() => {});
    const closing = closers.closeAll();
    expect(() => closers.add('late', () => {})).toThrow(/already closing/);
    await closing;
  });
});
