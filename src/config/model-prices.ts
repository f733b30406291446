/**
 * MODEL_PRICES: per-model prices that turn tokens into dollars. The defaults are OpenAI's published standard
 * (non-batch, uncached) prices for its common chat models; a JSON object in MODEL_PRICES adds models or replaces
 * these, e.g. {"gpt-4o-mini": {"input": 0.15, "output": 0.6}, "llama3.1": {"input": 0, "output": 0}}.
 */
import { z } from 'zod';
import type { ModelPrices } from '../core/model-prices';

/** USD per 1M tokens. Check https://openai.com/api/pricing when models change; MODEL_PRICES overrides any of them. */
export const DEFAULT_MODEL_PRICES: ModelPrices = Object.freeze({
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  o3: { input: 2, output: 8 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
});

const priceSchema = z.object({ input: z.number().min(0).max(10_000), output: z.number().min(0).max(10_000) }).strict();

/** The MODEL_PRICES variable: unset → the defaults; else a JSON object merged over them. */
export const modelPricesVariable = z
  .string()
  .optional()
  .transform((value, ctx): ModelPrices => {
    if (value === undefined || value.trim() === '') return DEFAULT_MODEL_PRICES;
    const fix =
      'set it to a JSON object of USD per million tokens, e.g. {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}, or unset it for the defaults';
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: `MODEL_PRICES is not valid JSON; ${fix}` });
      return z.NEVER;
    }
    const checked = z.record(z.string().min(1), priceSchema).safeParse(parsed);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      const where = issue.path.length ? ` at ${issue.path.join('.')}` : '';
      ctx.addIssue({ code: 'custom', message: `MODEL_PRICES${where}: ${issue.message}; ${fix}` });
      return z.NEVER;
    }
    return Object.freeze({ ...DEFAULT_MODEL_PRICES, ...checked.data });
  });
