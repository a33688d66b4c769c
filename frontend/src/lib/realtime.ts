/**
 * The tab's WebSocket (`/api/v1/ws`). The token goes in the first message, never in the URL; the
 * server answers `ready` and then sends events. Closed with 4401, the session is over; closed
 * otherwise (a restart, a network blip, too slow to read), it reconnects with exponential backoff
 * and jitter, and `onResync` tells the app to refetch what it may have missed.
 */

/** An event from the server: a `type` and the ids it concerns. */
export type RealtimeEvent = { type: string; [field: string]: unknown };

export type RealtimeHandlers = {
  onEvent: (event: RealtimeEvent) => void;
  /** The session has ended (close code 4401): sign out. */
  onSessionEnded: () => void;
  /** Connected again after a break: refetch. */
  onResync: () => void;
};

export const SESSION_ENDED = 4401;
const MAX_BACKOFF_MS = 30_000;

type SocketFactory = (url: string) => WebSocket;

/** The socket's URL on this origin (ws: or wss: as the page). */
export function realtimeUrl(location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/ws`;
}

/** Connects and keeps connecting until `close()`. */
export function connectRealtime(token: string, handlers: RealtimeHandlers, open: SocketFactory = (url) => new WebSocket(url)): { close: () => void } {
  let closed = false;
  let attempt = 0;
  let everReady = false;
  let socket: WebSocket | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const connect = () => {
    socket = open(realtimeUrl());
    socket.onopen = () => socket?.send(JSON.stringify({ type: 'auth', token }));
    socket.onmessage = (message: MessageEvent) => {
      let event: RealtimeEvent;
      try {
        event = JSON.parse(String(message.data)) as RealtimeEvent;
      } catch {
        return;
      }
      if (event.type === 'ready') {
        if (everReady) handlers.onResync();
        everReady = true;
        attempt = 0;
        return;
      }
      handlers.onEvent(event);
    };
    socket.onclose = (event: CloseEvent) => {
      socket = undefined;
      if (closed) return;
      if (event.code === SESSION_ENDED) {
        closed = true;
        handlers.onSessionEnded();
        return;
      }
      const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2);
      attempt += 1;
      retry = setTimeout(connect, delay);
    };
  };
  connect();

  return {
    close: () => {
      closed = true;
      if (retry) clearTimeout(retry);
      socket?.close(1000);
    },
  };
}
