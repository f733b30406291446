import { describe, expect, it } from 'vitest';
import { createSlots } from '../../src/core/slots';

describe('createSlots', () => {
  it('grants up to its capacity at once and hands each released slot to the next waiter, in order', async () => {
    const slots = createSlots(2);
    const first = await slots.acquire();
    await slots.acquire();
    const granted: string[] = [];
    const third = slots.acquire().then((release) => (granted.push('third'), release));
    const fourth = slots.acquire().then((release) => (granted.push('fourth'), release));
    first();
    first(); // releasing the same slot twice frees it once
    await third;
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toEqual(['third']);
    (await third)();
    await fourth;
    expect(granted).toEqual(['third', 'fourth']);
  });

  it("drops an aborted waiter with the signal's reason, and the slot goes to the next one", async () => {
    const slots = createSlots(1);
    const release = await slots.acquire();
    const controller = new AbortController();
    const aborted = slots.acquire(controller.signal);
    const next = slots.acquire();
    controller.abort(new Error('user cancelled'));
    await expect(aborted).rejects.toThrow('user cancelled');
    release();
    await expect(next).resolves.toBeTypeOf('function');
  });

  it('rejects waiters and later acquires once closed', async () => {
    const slots = createSlots(1);
    await slots.acquire();
    const waiting = slots.acquire();
    slots.close(new Error('closed'));
    await expect(waiting).rejects.toThrow('closed');
    await expect(slots.acquire()).rejects.toThrow('closed');
  });
});
