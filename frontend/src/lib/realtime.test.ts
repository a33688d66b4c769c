import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connectRealtime } from './realtime';

/** A socket the test drives: it records what the app sends and plays the server's side. */
class FakeSocket {
  static all: FakeSocket[] = [];
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: MessageEvent) => void) | null = null;
  onclose: ((e: CloseEvent) => void) | null = null;
  constructor(public url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {}
  serverSays(data: object) {
    this.onmessage?.({ data: JSON.stringify(data) } as MessageEvent);
  }
  serverCloses(code: number) {
    this.onclose?.({ code } as CloseEvent);
  }
}

const open = (url: string) => new FakeSocket(url) as unknown as WebSocket;

beforeEach(() => {
  FakeSocket.all = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe('connectRealtime', () => {
  it('sends the token as its first message, never in the URL, and passes events on', () => {
    const onEvent = vi.fn();
    connectRealtime('secret-token', { onEvent, onSessionEnded: vi.fn(), onResync: vi.fn() }, open);
    const socket = FakeSocket.all[0]!;
    expect(socket.url).toMatch(/\/api\/v1\/ws$/);
    expect(socket.url).not.toContain('secret-token');
    socket.onopen?.();
    expect(JSON.parse(socket.sent[0]!)).toEqual({ type: 'auth', token: 'secret-token' });
    socket.serverSays({ type: 'ready' });
    socket.serverSays({ type: 'report.status_changed', reportId: 'r1', status: 'approved' });
    expect(onEvent).toHaveBeenCalledExactlyOnceWith({ type: 'report.status_changed', reportId: 'r1', status: 'approved' });
  });

  it('ends the session on 4401 and does not reconnect', () => {
    const onSessionEnded = vi.fn();
    connectRealtime('t', { onEvent: vi.fn(), onSessionEnded, onResync: vi.fn() }, open);
    FakeSocket.all[0]!.serverCloses(4401);
    expect(onSessionEnded).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
  });

  it('reconnects with growing delays after other closes, and asks for a resync once ready again', () => {
    const onResync = vi.fn();
    connectRealtime('t', { onEvent: vi.fn(), onSessionEnded: vi.fn(), onResync }, open);
    FakeSocket.all[0]!.serverSays({ type: 'ready' });
    FakeSocket.all[0]!.serverCloses(1006);
    vi.advanceTimersByTime(999);
    expect(FakeSocket.all).toHaveLength(2); // first retry within 0.5-1 s
    FakeSocket.all[1]!.serverCloses(4408);
    vi.advanceTimersByTime(999);
    expect(FakeSocket.all).toHaveLength(2); // the second waits 1-2 s
    vi.advanceTimersByTime(1001);
    expect(FakeSocket.all).toHaveLength(3);
    FakeSocket.all[2]!.serverSays({ type: 'ready' });
    expect(onResync).toHaveBeenCalledOnce();
  });

  it('stops for good when closed by the app', () => {
    const client = connectRealtime('t', { onEvent: vi.fn(), onSessionEnded: vi.fn(), onResync: vi.fn() }, open);
    client.close();
    FakeSocket.all[0]!.serverCloses(1000);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
  });
});
