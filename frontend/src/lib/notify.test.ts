import { notificationsStore } from '@mantine/notifications';
import { describe, expect, it } from 'vitest';
import { notify } from './notify';

const shown = () =>
  [...notificationsStore.getState().notifications, ...notificationsStore.getState().queue].map(({ color, title, message }) => ({ color, title, message }));

describe('notify', () => {
  it('a success takes away the failure of the same action that it follows, and only that one', () => {
    notify.failure('enterprise.create', 'Failed to create enterprise', 'This email address cannot be used');
    notify.failure('user.delete', 'Failed to delete user', 'Server error');
    notify.success('enterprise.create', 'Enterprise created successfully');
    expect(shown()).toEqual([
      { color: 'red', title: 'Failed to delete user', message: 'Server error' },
      { color: 'teal', title: undefined, message: 'Enterprise created successfully' },
    ]);
  });

  it('a second failure of an action replaces the first', () => {
    notify.failure('report.update', 'Failed to update report', 'Network error');
    notify.failure('report.update', 'Failed to update report', 'Server error');
    expect(shown()).toEqual([{ color: 'red', title: 'Failed to update report', message: 'Server error' }]);
  });
});
