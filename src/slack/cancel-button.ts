/** The action id Bolt routes clicks on a status message's Stop button by; the value is the run id. */
export const CANCEL_ACTION_ID = 'threadwise_cancel';

export function parseCancelValue(value: string | undefined): number | undefined {
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}
