import { MantineProvider } from '@mantine/core';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ApiRequestError, NetworkError } from '@/api/mutator';
import '@/i18n/signed-in';
import type { SaveState } from '../autosave';
import { ConflictDialog } from './ConflictDialog';
import { SaveIndicator } from './SaveIndicator';

const renderWith = (node: ReactNode) => render(<MantineProvider env="test">{node}</MantineProvider>);

const state = (status: SaveState['status'], more: Partial<SaveState> = {}): SaveState => ({ status, version: 4, ...more });

describe('the save indicator', () => {
  it.each<[string, SaveState | 'readOnly', string]>([
    ['saved', state('saved', { savedAt: '2026-03-01T10:00:00Z' }), 'All changes saved'],
    ['pending', state('pending'), 'Unsaved changes'],
    ['saving', state('saving'), 'Saving…'],
    ['offline, retrying', state('retrying', { retryIn: 1, error: new NetworkError(new TypeError('offline')) }), 'Not saved yet: trying again in 1 second'],
    [
      'busy, retrying',
      state('retrying', { retryIn: 5, error: new ApiRequestError(503, { code: 'unavailable', message: 'Busy' }, 5) }),
      'Not saved yet: trying again in 5 seconds',
    ],
    [
      'refused',
      state('failed', { error: new ApiRequestError(400, { code: 'validation_failed', message: 'Please check your input', fields: { content: 'too_long' } }) }),
      'Not saved',
    ],
    ['conflict', state('conflict'), 'Conflict: not saved'],
    ['read-only', 'readOnly', 'Read-only'],
  ])('%s: says so, politely', (_, value, text) => {
    renderWith(<SaveIndicator state={value} />);
    const status = screen.getByRole('status');
    expect(status).toHaveAttribute('aria-live', 'polite');
    expect(within(status).getByText(text)).toBeInTheDocument();
  });

  it('says why a save waits or failed', () => {
    renderWith(<SaveIndicator state={state('retrying', { retryIn: 10, error: new NetworkError(new TypeError('offline')) })} />);
    expect(screen.getByRole('status')).toHaveTextContent('Network error. Please check your connection.');
  });

  it('offers "Retry" after a refused save, and "Resolve…" at a conflict, and nothing else', async () => {
    const onRetry = vi.fn();
    const onResolve = vi.fn();
    const events = userEvent.setup();
    const { rerender } = renderWith(<SaveIndicator state={state('failed')} onRetry={onRetry} onResolve={onResolve} />);
    await events.click(screen.getByRole('button', { name: 'Try again' }));
    expect(onRetry).toHaveBeenCalledOnce();
    expect(screen.queryByRole('button', { name: 'Resolve…' })).not.toBeInTheDocument();

    rerender(
      <MantineProvider env="test">
        <SaveIndicator state={state('conflict')} onRetry={onRetry} onResolve={onResolve} />
      </MantineProvider>,
    );
    await events.click(screen.getByRole('button', { name: 'Resolve…' }));
    expect(onResolve).toHaveBeenCalledOnce();

    rerender(
      <MantineProvider env="test">
        <SaveIndicator state={state('saved')} onRetry={onRetry} onResolve={onResolve} />
      </MantineProvider>,
    );
    expect(screen.queryByRole('button')).not.toBeInTheDocument();
  });
});

describe('the conflict dialog', () => {
  const open = (busy: 'reload' | 'copy' | null = null) => {
    const handlers = { onReload: vi.fn(), onKeepCopy: vi.fn(), onClose: vi.fn() };
    renderWith(<ConflictDialog opened name="Budget 2026" busy={busy} {...handlers} />);
    return handlers;
  };

  it('says what happened, naming the spreadsheet, and offers to reload or keep a copy', async () => {
    const handlers = open();
    const events = userEvent.setup();
    const dialog = screen.getByRole('dialog', { name: 'Someone else saved this spreadsheet' });
    expect(dialog).toHaveTextContent('Budget 2026 was saved by someone else since you opened it, so your latest changes were not saved.');

    await events.click(within(dialog).getByRole('button', { name: 'Reload their version' }));
    expect(handlers.onReload).toHaveBeenCalledOnce();
    expect(handlers.onKeepCopy).not.toHaveBeenCalled();

    await events.click(within(dialog).getByRole('button', { name: 'Keep my version as a copy' }));
    expect(handlers.onKeepCopy).toHaveBeenCalledOnce();
    expect(handlers.onReload).toHaveBeenCalledOnce();
  });

  it('lets one choice run at a time', () => {
    open('copy');
    expect(screen.getByRole('button', { name: 'Reload their version' })).toBeDisabled();
  });
});
