import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttle } from './throttle';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('throttle', () => {
  it('runs the first call at once and gathers the calls of the next 2 s into one at its end', () => {
    const run = vi.fn();
    const refresh = throttle(run, 2000);
    refresh.call();
    expect(run).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 50; i += 1) refresh.call();
    vi.advanceTimersByTime(1999);
    expect(run).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledTimes(2);
    // Quiet afterwards: nothing more, and the next call runs at once again once the wait is over.
    vi.advanceTimersByTime(2000);
    expect(run).toHaveBeenCalledTimes(2);
    refresh.call();
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('drops a pending run when cancelled', () => {
    const run = vi.fn();
    const refresh = throttle(run, 2000);
    refresh.call();
    refresh.call();
    refresh.cancel();
    vi.advanceTimersByTime(5000);
    expect(run).toHaveBeenCalledTimes(1);
  });
});
