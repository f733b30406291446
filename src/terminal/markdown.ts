/**
 * The model's markdown, readable in a terminal: headings, emphasis, lists, tables drawn with box characters, code
 * highlighted. marked parses and marked-terminal renders (both maintained, both run on Node 20; marked-terminal also
 * strips control characters from the text, so an answer cannot smuggle escape sequences into the terminal).
 * Colours follow the terminal (chalk honours NO_COLOR and FORCE_COLOR).
 */
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

export type RenderMarkdown = (markdown: string) => string;

export function createMarkdownRenderer(options: { width: number }): RenderMarkdown {
  const marked = new Marked(markedTerminal({ width: options.width, reflowText: true, showSectionPrefix: false, tab: 2 }));
  // The text of a tight list item carries its emphasis and code as inline tokens, which marked-terminal 7.3's text
  // renderer ignores ("**First**" would print as is): render them; any other text falls back to marked-terminal.
  marked.use({
    renderer: {
      text(token) {
        return 'tokens' in token && token.tokens?.length ? this.parser.parseInline(token.tokens) : false;
      },
    },
  });
  // Synchronous: no async extension is installed, so parse returns the string itself.
  return (markdown) => (marked.parse(markdown, { async: false }) as string).replace(/\s+$/, '');
}
