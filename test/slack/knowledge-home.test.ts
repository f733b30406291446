/** App Home's memories section swapped in place after a Forget click, the rest of the home view left as it was. */
import { describe, expect, it } from 'vitest';
import { replaceMemoriesSection } from '../../src/slack/knowledge-home';

const header = (text: string) => ({ type: 'header', text: { type: 'plain_text', text } });
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const divider = { type: 'divider' };

describe('replaceMemoriesSection', () => {
  const fresh = [divider, header('Memories'), section('new')];

  it('replaces the section from its divider up to the next divider', () => {
    const view = [header('threadwise'), divider, header('Memories'), section('old 1'), section('old 2'), divider, header('Tasks'), section('t')];
    expect(replaceMemoriesSection(view, fresh)).toEqual([header('threadwise'), divider, header('Memories'), section('new'), divider, header('Tasks'), section('t')]);
  });

  it('replaces it to the end when it is the last section, and appends it when there is none', () => {
    expect(replaceMemoriesSection([header('threadwise'), divider, header('Memories'), section('old')], fresh)).toEqual([header('threadwise'), ...fresh]);
    expect(replaceMemoriesSection([header('threadwise')], fresh)).toEqual([header('threadwise'), ...fresh]);
  });
});
