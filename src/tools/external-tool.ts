/**
 * A tool that lives outside threadwise (an MCP server's), offered to the model under its own name and JSON Schema.
 * Its result comes back framed as data from that tool, like file content; images it returns are shown to the model
 * on the next turn. Whether a call waits for a person is the operator's configuration, passed in here.
 */
import { z } from 'zod';
import type { ApprovalPrompt, ApproveNow } from '../core/approval';
import { ThreadwiseError } from '../core/errors';
import type { Tool } from './tool';

interface ExternalToolResult {
  /** For the model, already framed and capped by the source. */
  text: string;
  images: Array<{ dataUrl: string; name: string }>;
}

export interface ExternalToolSpec {
  /** As the model sees it, e.g. "tracker__create_issue" (within OpenAI's name rules). */
  name: string;
  description: string;
  /** JSON Schema of the arguments object, already cleaned for the model. */
  parameters: Record<string, unknown>;
  /** Where it acts, e.g. the MCP server's name. */
  server: string;
  /** Its own name there. */
  action: string;
  /** Set by the operator: every call waits for a person's approval. */
  needsApproval: boolean;
  hints?: ApprovalPrompt['hints'];
  /**
   * Where a person is at hand (the terminal): a call that needs approval asks them before it runs, instead of the
   * run being parked for a decision in the thread.
   */
  approveNow?: ApproveNow;
  call(args: Record<string, unknown>, options: { signal: AbortSignal; maxChars: number }): Promise<ExternalToolResult>;
}

/** Arguments reach the server as the model wrote them (an object); the server checks them against its schema. */
const anyObject = z.record(z.string(), z.unknown());

export function createExternalTool(spec: ExternalToolSpec): Tool<Record<string, unknown>> {
  return {
    name: spec.name,
    description: spec.description,
    parameters: anyObject,
    jsonSchema: spec.parameters,
    describeProgress: () => `using ${spec.action} on ${spec.server}…`,
    approval: spec.needsApproval && !spec.approveNow ? (args) => promptFor(spec, args) : undefined,
    async execute(args, context) {
      if (spec.needsApproval && spec.approveNow) {
        const decision = await spec.approveNow(promptFor(spec, args), context.signal);
        if (!decision.approved) throw new ThreadwiseError('not_approved', decision.sentence, { context: { tool: spec.name } });
        context.recordActivity(`${decision.by} approved ${spec.action} on ${spec.server}`);
      }
      // A tool result may take what is left of the context, within reason; the source caps and frames it.
      const maxChars = Math.max(2_000, Math.min(40_000, context.tokensLeft() * 2));
      const result = await spec.call(args, { signal: context.signal, maxChars });
      for (const image of result.images) context.showImage({ fileId: spec.name, name: image.name, dataUrl: image.dataUrl });
      context.recordActivity(`used ${spec.action} on ${spec.server}`);
      return result.text;
    },
  };
}

function promptFor(spec: ExternalToolSpec, args: Record<string, unknown>): ApprovalPrompt {
  return { tool: spec.name, server: spec.server, action: spec.action, arguments: args, hints: spec.hints };
}
