import { TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useState } from 'react';

type SearchInputProps = {
  /** The search in effect (e.g. from the URL). */
  value: string;
  /** Called once typing pauses, with the trimmed text. */
  onSearch: (value: string) => void;
  label: string;
  placeholder?: string;
  delay?: number;
};

/** A search box that asks the server only once typing pauses. */
export function SearchInput({ value, onSearch, label, placeholder, delay = 300 }: SearchInputProps) {
  const [text, setText] = useState(value);
  const search = useDebouncedCallback((next: string) => onSearch(next.trim()), delay);

  // Follow changes from outside (back button, "clear filters"), not the echo of our own search:
  // state adjusted while rendering, so the box never shows the old text for one frame.
  const [seenValue, setSeenValue] = useState(value);
  if (value !== seenValue) {
    setSeenValue(value);
    if (text.trim() !== value) setText(value);
  }

  return (
    <TextInput
      type="search"
      label={label}
      placeholder={placeholder}
      value={text}
      onChange={(event) => {
        setText(event.currentTarget.value);
        search(event.currentTarget.value);
      }}
      // Leaving the box (to click a result) searches at once: a search still waiting for its pause
      // would otherwise run after the click and take the page back from where the click went.
      onBlur={() => search.flush()}
      onKeyDown={(event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          search.flush();
        }
      }}
      leftSection={<IconSearch size={16} aria-hidden />}
      style={{ flex: '1 1 240px' }}
    />
  );
}
