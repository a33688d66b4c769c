import { isApiRequestError, isNetworkError } from '@/api/mutator';

/**
 * Where the workbook stands against the server:
 * - `saved`: the server has every change;
 * - `pending`: changes wait for the next save (a pause in typing);
 * - `saving`: a save is on its way;
 * - `retrying`: the server was busy (503) or out of reach: the save is tried again by itself;
 * - `failed`: the server refused the save; the next change (or "Retry") tries again;
 * - `conflict`: someone saved since this version (409 `stale_version`): nothing more is saved
 *   until the user reloads or keeps a copy.
 */
export type SaveStatus = 'saved' | 'pending' | 'saving' | 'retrying' | 'failed' | 'conflict';

export type SaveState = {
  status: SaveStatus;
  /** The version the next save is made from. */
  version: number;
  /** When the server last took a save (ISO time). */
  savedAt?: string;
  /** Why the last save failed (`failed`, `retrying`, `conflict`). */
  error?: unknown;
  /** Seconds until the next try (`retrying`). */
  retryIn?: number;
};

export type SaveRequest = { content: Uint8Array; version: number; name?: string };
export type SaveAnswer = { version: number; updatedAt: string };

type Options = {
  version: number;
  /** The workbook's bytes now. */
  snapshot: () => Uint8Array;
  save: (request: SaveRequest) => Promise<SaveAnswer>;
  onChange: (state: SaveState) => void;
  /** How long typing must pause before a save. */
  delayMs?: number;
};

/** Waits when the server did not say: engine slots free up in seconds. */
const DEFAULT_BUSY_WAIT = 5;
const OFFLINE_RETRY_SECONDS = 10;

const isStale = (error: unknown) => isApiRequestError(error) && error.status === 409;

/**
 * Saves a workbook by itself: after each pause in the changes, one save at a time, made from the
 * version it last saved (so the server can refuse a save over someone else's). A busy or
 * unreachable server is tried again; a conflict stops everything until the user decides.
 */
export class Autosaver {
  private current: SaveState;
  private dirty = false;
  private name: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: Promise<void> | undefined;
  private disposed = false;
  private silent = false;
  private readonly delayMs: number;

  constructor(private readonly options: Options) {
    this.current = { status: 'saved', version: options.version };
    this.delayMs = options.delayMs ?? 1500;
    window.addEventListener('beforeunload', this.warn);
  }

  get state(): SaveState {
    return this.current;
  }

  /** Whether something is not on the server yet. */
  get unsaved(): boolean {
    return this.dirty || this.inFlight !== undefined;
  }

  /** The workbook changed: save it after the next pause. */
  change(): void {
    this.dirty = true;
    if (this.current.status === 'conflict' || this.disposed) return;
    if (!this.inFlight && this.current.status !== 'retrying') this.set({ status: 'pending', error: undefined, retryIn: undefined });
    if (this.current.status !== 'retrying') this.schedule(this.delayMs);
  }

  /** A new name, sent with the next save. */
  rename(name: string): void {
    this.name = name;
    this.change();
  }

  /** Saves now whatever is pending, and settles once the server has answered. */
  async flush(): Promise<SaveState> {
    this.clearTimer();
    while (this.inFlight) await this.inFlight;
    if (this.dirty) await this.run();
    return this.current;
  }

  /**
   * The editor closes: nobody listens any more, but what is pending is still saved. A busy or
   * unreachable server is tried again as while the editor was open (stopping at the first
   * `retrying` dropped the changes without a word), and until the save settles leaving the page
   * still asks first.
   */
  async close(): Promise<SaveState> {
    this.silent = true;
    try {
      let state = await this.flush();
      while (state.status === 'retrying' && !this.disposed) {
        // This loop does the waiting now (its flush would clear the retry's timer anyway).
        this.clearTimer();
        await new Promise((resolve) => setTimeout(resolve, (state.retryIn ?? OFFLINE_RETRY_SECONDS) * 1000));
        state = await this.flush();
      }
      return state;
    } finally {
      this.dispose();
    }
  }

  /** Stops saving (the user chose how to settle a conflict, or the editor closed). */
  dispose(): void {
    this.disposed = true;
    this.clearTimer();
    window.removeEventListener('beforeunload', this.warn);
  }

  /**
   * Leaving the page (reload, close, another site) while changes are not on the server yet: the
   * browser asks first, since the page's requests end with it. The saver listens itself, from
   * its creation until it is disposed, so a saver whose editor has gone (the user left for
   * another screen, or a new saver took over) still warns while its last save is on its way.
   */
  private readonly warn = (event: BeforeUnloadEvent) => {
    if (this.unsaved) event.preventDefault();
  };

  private set(patch: Partial<SaveState>): void {
    const next = { ...this.current, ...patch };
    const keys = new Set([...Object.keys(this.current), ...Object.keys(next)]) as Set<keyof SaveState>;
    if ([...keys].every((key) => next[key] === this.current[key])) return;
    this.current = next;
    if (!this.disposed && !this.silent) this.options.onChange(this.current);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    this.clearTimer();
    this.timer = setTimeout(() => void this.run(), ms);
  }

  private async run(): Promise<void> {
    this.clearTimer();
    if (this.inFlight) {
      // The save on its way finishes first; what changed since goes in the next one.
      await this.inFlight;
      return;
    }
    if (!this.dirty || this.current.status === 'conflict' || this.disposed) return;
    const content = this.options.snapshot();
    const name = this.name;
    this.dirty = false;
    this.name = undefined;
    this.set({ status: 'saving', retryIn: undefined });
    this.inFlight = this.send(content, name);
    try {
      await this.inFlight;
    } finally {
      this.inFlight = undefined;
    }
    if (this.dirty && this.current.status === 'pending') this.schedule(this.delayMs);
  }

  private async send(content: Uint8Array, name: string | undefined): Promise<void> {
    try {
      const answer = await this.options.save({ content, version: this.current.version, ...(name === undefined ? {} : { name }) });
      this.set({ status: this.dirty ? 'pending' : 'saved', version: answer.version, savedAt: answer.updatedAt, error: undefined });
    } catch (error) {
      // Nothing of this save reached the server: it is all still to save.
      this.dirty = true;
      if (name !== undefined && this.name === undefined) this.name = name;
      if (isStale(error)) {
        this.set({ status: 'conflict', error });
      } else if (isApiRequestError(error) && error.status === 503) {
        const wait = Math.min(60, Math.max(1, error.retryAfter ?? DEFAULT_BUSY_WAIT));
        this.set({ status: 'retrying', error, retryIn: wait });
        this.schedule(wait * 1000);
      } else if (isNetworkError(error) || (isApiRequestError(error) && error.status >= 500)) {
        this.set({ status: 'retrying', error, retryIn: OFFLINE_RETRY_SECONDS });
        this.schedule(OFFLINE_RETRY_SECONDS * 1000);
      } else {
        this.set({ status: 'failed', error });
      }
    }
  }
}
