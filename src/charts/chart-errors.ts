/** Chart failures as ThreadwiseErrors with a sentence the model can act on (what was wrong, what to send instead). */
import { ThreadwiseError } from '../core/errors';

export type ChartErrorCode = 'chart_spec_invalid' | 'chart_render_failed';

export class ChartError extends ThreadwiseError<ChartErrorCode> {
  override readonly name: string = 'ChartError';
}
