import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiRequestError, NetworkError } from '@/api/mutator';
import { Autosaver, type SaveAnswer, type SaveRequest, type SaveState } from './autosave';

const stale = () => new ApiRequestError(409, { code: 'conflict', message: 'Someone saved this since you opened it', reason: 'stale_version' });
const busy = (seconds: number) => new ApiRequestError(503, { code: 'unavailable', message: 'Busy' }, seconds);
const invalid = () => new ApiRequestError(400, { code: 'validation_failed', message: 'Please check your input', fields: { content: 'too_long' } });

/** The savers of a test: disposed after it, so none still listens for the page's unload. */
const created: Autosaver[] = [];

/** An autosaver over a fake server whose answers the test gives one by one. */
function setUp(version = 3) {
  let bytes = 0;
  const requests: SaveRequest[] = [];
  const answers: ((request: SaveRequest) => Promise<SaveAnswer>)[] = [];
  const states: SaveState['status'][] = [];
  const saver = new Autosaver({
    version,
    delayMs: 1000,
    snapshot: () => new Uint8Array([++bytes]),
    save: (request) => {
      requests.push(request);
      const answer = answers.shift();
      return answer ? answer(request) : Promise.resolve({ version: request.version + 1, updatedAt: '2026-03-01T10:00:00Z' });
    },
    onChange: (state) => states.push(state.status),
  });
  created.push(saver);
  return { saver, requests, states, answer: (fn: (request: SaveRequest) => Promise<SaveAnswer>) => answers.push(fn) };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  created.splice(0).forEach((saver) => saver.dispose());
  vi.useRealTimers();
});

describe('autosave', () => {
  it('saves once after a pause in the changes, from the version it holds, then the next from the new version', async () => {
    const { saver, requests, states } = setUp(3);
    saver.change();
    await vi.advanceTimersByTimeAsync(600);
    saver.change();
    await vi.advanceTimersByTimeAsync(600);
    expect(requests).toHaveLength(0);
    expect(saver.state.status).toBe('pending');

    await vi.advanceTimersByTimeAsync(500);
    expect(requests.map((r) => r.version)).toEqual([3]);
    expect(saver.state).toMatchObject({ status: 'saved', version: 4, savedAt: '2026-03-01T10:00:00Z' });

    saver.change();
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests.map((r) => r.version)).toEqual([3, 4]);
    expect(states).toEqual(['pending', 'saving', 'saved', 'pending', 'saving', 'saved']);
  });

  it('sends a change made during a save in a save of its own, after it', async () => {
    const { saver, requests, answer } = setUp(1);
    let finish: (answer: SaveAnswer) => void = () => {};
    answer(() => new Promise((resolve) => (finish = resolve)));
    saver.change();
    await vi.advanceTimersByTimeAsync(1000);
    expect(saver.state.status).toBe('saving');

    saver.change();
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(1);
    finish({ version: 2, updatedAt: '2026-03-01T10:00:00Z' });
    await vi.advanceTimersByTimeAsync(0);
    expect(saver.state.status).toBe('pending');

    await vi.advanceTimersByTimeAsync(1000);
    expect(requests.map((r) => [r.version, r.content[0]])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(saver.state).toMatchObject({ status: 'saved', version: 3 });
  });

  it('stops at a conflict: nothing more is saved, and the changes stay unsaved', async () => {
    const { saver, requests, answer } = setUp(5);
    answer(() => Promise.reject(stale()));
    saver.change();
    await vi.advanceTimersByTimeAsync(1000);
    expect(saver.state.status).toBe('conflict');

    saver.change();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(requests).toHaveLength(1);
    expect(saver.unsaved).toBe(true);
    expect((await saver.flush()).status).toBe('conflict');
    expect(requests).toHaveLength(1);
  });

  it('tries again by itself when the server is busy (after its Retry-After) or out of reach', async () => {
    const { saver, requests, answer } = setUp(1);
    answer(() => Promise.reject(busy(3)));
    answer(() => Promise.reject(new NetworkError(new TypeError('offline'))));
    saver.change();
    await vi.advanceTimersByTimeAsync(1000);
    expect(saver.state).toMatchObject({ status: 'retrying', retryIn: 3 });

    await vi.advanceTimersByTimeAsync(2900);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(requests).toHaveLength(2);
    expect(saver.state).toMatchObject({ status: 'retrying', retryIn: 10 });

    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests.map((r) => r.version)).toEqual([1, 1, 1]);
    expect(saver.state).toMatchObject({ status: 'saved', version: 2 });
  });

  it('reports a refused save and tries again at the next change', async () => {
    const { saver, requests, answer } = setUp(1);
    answer(() => Promise.reject(invalid()));
    saver.change();
    await vi.advanceTimersByTimeAsync(1000);
    expect(saver.state.status).toBe('failed');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(requests).toHaveLength(1);

    saver.change();
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(2);
    expect(saver.state.status).toBe('saved');
  });

  it('sends a new name with the next save, and again if that save failed', async () => {
    const { saver, requests, answer } = setUp(1);
    answer(() => Promise.reject(busy(1)));
    saver.rename('Budget 2026');
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests.map((r) => r.name)).toEqual(['Budget 2026', 'Budget 2026']);
    saver.change();
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests[2].name).toBeUndefined();
  });

  it('flush saves at once, without waiting for the pause', async () => {
    const { saver, requests } = setUp(7);
    saver.change();
    const state = await saver.flush();
    expect(requests).toHaveLength(1);
    expect(state).toMatchObject({ status: 'saved', version: 8 });
    expect(saver.unsaved).toBe(false);
  });

  it('closing keeps trying a busy or unreachable server until the save is on it, without a word to the closed editor', async () => {
    const { saver, requests, states, answer } = setUp(4);
    answer(() => Promise.reject(busy(2)));
    answer(() => Promise.reject(new NetworkError(new TypeError('offline'))));
    saver.change();
    let closed: SaveState | undefined;
    void saver.close().then((state) => (closed = state));
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toHaveLength(1);
    expect(saver.unsaved).toBe(true);

    await vi.advanceTimersByTimeAsync(2000);
    expect(requests).toHaveLength(2);
    expect(closed).toBeUndefined();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests.map((r) => r.version)).toEqual([4, 4, 4]);
    expect(closed).toMatchObject({ status: 'saved', version: 5 });
    expect(saver.unsaved).toBe(false);
    expect(states).toEqual(['pending']);
  });

  it('asks before the page is left while changes are not on the server, also once its editor has closed', async () => {
    const { saver, answer } = setUp(1);
    let finish: (answer: SaveAnswer) => void = () => {};
    answer(() => new Promise((resolve) => (finish = resolve)));
    const leave = () => {
      const event = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(event);
      return event.defaultPrevented;
    };
    expect(leave()).toBe(false);
    saver.change();
    expect(leave()).toBe(true);

    // The editor closes while the save is on its way: the page must still not go without asking.
    const closing = saver.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(leave()).toBe(true);
    finish({ version: 2, updatedAt: '2026-03-01T10:00:00Z' });
    expect(await closing).toMatchObject({ status: 'saved', version: 2 });
    expect(leave()).toBe(false);
  });
});
