import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { SearchInput } from './SearchInput';

function renderSearch(onSearch: (value: string) => void) {
  render(
    <MantineProvider env="test">
      <SearchInput value="" onSearch={onSearch} label="Search" delay={10_000} />
      <a href="#result">A result</a>
    </MantineProvider>,
  );
}

describe('the search box', () => {
  it('searches once typing pauses, with the trimmed text', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const onSearch = vi.fn();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) });
    renderSearch(onSearch);
    await user.type(screen.getByRole('searchbox', { name: 'Search' }), ' acme ');
    expect(onSearch).not.toHaveBeenCalled();
    vi.advanceTimersByTime(10_000);
    expect(onSearch).toHaveBeenCalledTimes(1);
    expect(onSearch).toHaveBeenCalledWith('acme');
    vi.useRealTimers();
  });

  it('searches at once when the box is left for a result, and not again after', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const onSearch = vi.fn();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) });
    renderSearch(onSearch);
    await user.type(screen.getByRole('searchbox', { name: 'Search' }), 'acme');
    await user.click(screen.getByRole('link', { name: 'A result' }));
    expect(onSearch).toHaveBeenCalledTimes(1);
    expect(onSearch).toHaveBeenCalledWith('acme');
    vi.advanceTimersByTime(10_000);
    expect(onSearch).toHaveBeenCalledTimes(1);
    vi.useRealTimers();
  });

  it('searches at once on Enter', async () => {
    const onSearch = vi.fn();
    const user = userEvent.setup();
    renderSearch(onSearch);
    await user.type(screen.getByRole('searchbox', { name: 'Search' }), 'globex{Enter}');
    expect(onSearch).toHaveBeenCalledWith('globex');
  });
});
