import { Notifications } from '@mantine/notifications';

/**
 * The notification toasts, a module of their own so that they can load lazily (provider.tsx): a
 * dynamic import of '@mantine/notifications' itself would be the package the store already loaded.
 */
export default function Toasts() {
  return <Notifications position="top-right" />;
}
