/** The part of marked-terminal 7 that terminal/markdown.ts uses (the package ships no types of its own). */
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  export interface TerminalRendererOptions {
    width?: number;
    reflowText?: boolean;
    showSectionPrefix?: boolean;
    tab?: number;
    emoji?: boolean;
    unescape?: boolean;
  }

  export function markedTerminal(options?: TerminalRendererOptions, highlightOptions?: Record<string, unknown>): MarkedExtension;
}
