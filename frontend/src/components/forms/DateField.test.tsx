import { Button, MantineProvider, Modal, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { changeLocale } from '@/i18n';
import '@/i18n/signed-in';
import { rules } from '@/lib/validation';
import { useFieldProps } from '@/lib/forms';
import { DateField, dayProblem, parseDay } from './DateField';

describe('parseDay', () => {
  it('reads a day as written in the interface language, and an ISO date, as an ISO date', () => {
    expect(parseDay('15/01/2026', 'fr')).toBe('2026-01-15');
    expect(parseDay('01/15/2026', 'en')).toBe('2026-01-15');
    expect(parseDay(' 2026-01-15 ', 'fr')).toBe('2026-01-15');
  });

  it('refuses what is not a whole day in that format (no month 15, no half-typed year)', () => {
    expect(parseDay('01/15/2026', 'fr')).toBeNull();
    expect(parseDay('15/01/2026', 'en')).toBeNull();
    expect(parseDay('15/01/202', 'fr')).toBeNull();
    expect(parseDay('31/02/2026', 'fr')).toBeNull();
  });
});

describe('dayProblem', () => {
  it('tells a day that does not exist from what is not written as a day, and a day out of bounds', () => {
    expect(dayProblem('', 'en')).toBeNull();
    expect(dayProblem('01/15/2026', 'en')).toBeNull();
    expect(dayProblem('13/45/2026', 'en')).toBe('validation.dateInvalid');
    expect(dayProblem('2026-02-30', 'fr')).toBe('validation.dateInvalid');
    expect(dayProblem('31/02/2026', 'fr')).toBe('validation.dateInvalid');
    expect(dayProblem('next tuesday', 'en')).toBe('validation.dateFormat');
    expect(dayProblem('01/15/2026', 'en', '2026-02-01')).toBe('validation.dateOutOfRange');
    expect(dayProblem('01/15/2026', 'en', undefined, '2026-01-14')).toBe('validation.dateOutOfRange');
  });
});

/** A form with a title and a required period start, as the report forms have. */
function PeriodForm({ onSubmit, initial = '' }: { onSubmit: (values: { title: string; start: string }) => void; initial?: string }) {
  const form = useForm({ mode: 'controlled', initialValues: { title: '', start: initial }, validate: { start: rules.required } });
  const field = useFieldProps(form);
  return (
    <form noValidate onSubmit={form.onSubmit(onSubmit)}>
      <TextInput label="Title" {...field('title')} />
      <DateField label="Period start" withAsterisk popoverProps={{ withinPortal: true }} {...field('start')} />
      <Button type="submit">Save</Button>
    </form>
  );
}

const calendar = () => document.querySelector('[data-dates-dropdown]');

function renderForm(props: Parameters<typeof PeriodForm>[0], inModal?: { onClose: () => void }) {
  return render(
    <MantineProvider env="test">
      {inModal ? (
        <Modal opened onClose={inModal.onClose} title="Use in a report">
          <PeriodForm {...props} />
        </Modal>
      ) : (
        <PeriodForm {...props} />
      )}
    </MantineProvider>,
  );
}

describe('the date field', () => {
  it('keeps an impossible date as typed, says it does not exist, and the form does not submit', async () => {
    const onSubmit = vi.fn();
    const user = userEvent.setup();
    renderForm({ onSubmit, initial: '2026-01-15' });
    const start = screen.getByLabelText(/^Period start/);
    expect(start).toHaveValue('01/15/2026');

    await user.clear(start);
    await user.type(start, '13/45/2026');
    await user.tab();
    expect(start).toHaveValue('13/45/2026');
    expect(await screen.findByText('This date does not exist')).toBeInTheDocument();
    expect(start).toHaveAttribute('aria-invalid', 'true');

    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(start).toHaveValue('13/45/2026');
    expect(screen.getByText('This date does not exist')).toBeInTheDocument();
    expect(screen.queryByText('This field is required')).not.toBeInTheDocument();

    // Put right, it submits the day.
    await user.clear(start);
    await user.type(start, '02/28/2026');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith({ title: '', start: '2026-02-28' }, expect.anything()));
    expect(screen.queryByText('This date does not exist')).not.toBeInTheDocument();
  });

  it('says so in French, in the French way of writing a day, and an empty field keeps its required message', async () => {
    await changeLocale('fr');
    const onSubmit = vi.fn();
    const user = userEvent.setup();
    renderForm({ onSubmit });
    const start = screen.getByLabelText(/^Period start/);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Ce champ est obligatoire')).toBeInTheDocument();

    await user.type(start, '30/02/2026');
    await user.tab();
    expect(start).toHaveValue('30/02/2026');
    expect(await screen.findByText("Cette date n'existe pas")).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.queryByText('Ce champ est obligatoire')).not.toBeInTheDocument();
  });

  it('closes its calendar once a day is picked, typed whole, or the focus leaves', async () => {
    const user = userEvent.setup();
    renderForm({ onSubmit: vi.fn() });
    const start = screen.getByLabelText(/^Period start/);

    await user.click(start);
    const dropdown = calendar();
    expect(dropdown).not.toBeNull();
    const days = within(dropdown as HTMLElement).getAllByRole('button', { name: /^\d+ / });
    await user.click(days[10]);
    await waitFor(() => expect(calendar()).toBeNull());
    expect(start).not.toHaveValue('');

    await user.clear(start);
    expect(calendar()).not.toBeNull();
    await user.type(start, '03/31/2026');
    await waitFor(() => expect(calendar()).toBeNull());
    expect(start).toHaveValue('03/31/2026');

    await user.type(start, '{Backspace}');
    expect(calendar()).not.toBeNull();
    await user.tab();
    await waitFor(() => expect(calendar()).toBeNull());
  });

  it('in a modal, Escape closes the calendar only; with the calendar closed, it closes the modal', async () => {
    const onClose = vi.fn();
    const user = userEvent.setup();
    renderForm({ onSubmit: vi.fn() }, { onClose });
    const dialog = screen.getByRole('dialog', { name: 'Use in a report' });
    await user.type(within(dialog).getByLabelText(/^Title/), 'Sales from the sheet');
    const start = within(dialog).getByLabelText(/^Period start/);
    await user.click(start);
    expect(calendar()).not.toBeNull();

    await user.keyboard('{Escape}');
    await waitFor(() => expect(calendar()).toBeNull());
    expect(onClose).not.toHaveBeenCalled();
    expect(within(dialog).getByLabelText(/^Title/)).toHaveValue('Sales from the sheet');
    expect(start).toHaveFocus();

    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
