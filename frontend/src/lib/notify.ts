import { type NotificationData, notifications } from '@mantine/notifications';
import type { ReactNode } from 'react';

/**
 * The toasts that tell how an action went. `action` names what was tried ('enterprise.create',
 * `user.update:${id}`): its failure is kept under that name, so the action's next outcome
 * replaces it. A retry that succeeds takes the failure it follows away, and a second failure
 * takes the place of the first rather than stacking on it.
 */
const failureId = (action: string) => `failure:${action}`;

function replace(notification: NotificationData & { id: string }) {
  // `show` ignores an id already shown, `update` one that is not: together, show or replace.
  notifications.update(notification);
  notifications.show(notification);
}

export const notify = {
  /** The action worked: its earlier failure, if still shown, goes. */
  success(action: string, message: ReactNode, title?: ReactNode): void {
    notifications.hide(failureId(action));
    notifications.show({ color: 'teal', message, title });
  },
  /** The action failed: shown until closed, timed out, or replaced by the action's next outcome. */
  failure(action: string, title: ReactNode, message: ReactNode): void {
    replace({ id: failureId(action), color: 'red', title, message });
  },
};
