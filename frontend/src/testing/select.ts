import { waitFor, within } from '@testing-library/react';

/**
 * The options of an open Mantine Select. jsdom has no layout, so a dropdown counts as detached
 * from its input and stays `display: none` (outside Mantine's test env): look past that, inside
 * the listbox this combobox controls.
 */
export async function selectOptions(combobox: HTMLElement): Promise<HTMLElement[]> {
  const listbox = await waitFor(() => {
    const id = combobox.getAttribute('aria-controls');
    const element = id ? document.getElementById(id) : null;
    if (!element) throw new Error('The Select is not open');
    return element;
  });
  return within(listbox).findAllByRole('option', { hidden: true });
}

export const optionNames = async (combobox: HTMLElement) => (await selectOptions(combobox)).map((option) => option.textContent);
