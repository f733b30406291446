/** What tokens cost: US dollars per million tokens, by model (MODEL_PRICES, merged over config/model-prices.ts). */
export interface ModelPrice {
  /** USD per 1,000,000 input (prompt) tokens. */
  input: number;
  /** USD per 1,000,000 output (completion) tokens. */
  output: number;
}

export type ModelPrices = Readonly<Record<string, ModelPrice>>;

/**
 * The price of a model: its exact name, else the longest known name it starts with, so a dated snapshot
 * ("gpt-4o-mini-2024-07-18") costs what its family does. Undefined: unknown, counted as free and shown as such.
 */
export function priceOf(prices: ModelPrices, model: string): ModelPrice | undefined {
  if (prices[model]) return prices[model];
  let best: string | undefined;
  for (const name of Object.keys(prices)) if (model.startsWith(name) && (!best || name.length > best.length)) best = name;
  return best ? prices[best] : undefined;
}

/** USD for one call's tokens; 0 for a model without a price. */
export function costOfTokens(prices: ModelPrices, model: string, inputTokens: number, outputTokens: number): number {
  const price = priceOf(prices, model);
  if (!price) return 0;
  return (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
}

/** "$4.20", "$0.015", "$0.0006": cents for amounts people budget in, up to four decimals for what one run costs. */
export function formatUsd(amount: number): string {
  if (amount === 0) return '$0';
  if (Math.abs(amount) >= 1) return `$${amount.toFixed(2)}`;
  return `$${amount.toFixed(4).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}
