import { render } from '@testing-library/react';
import { QueryClient } from '@tanstack/react-query';
import { RouterProvider, createMemoryRouter } from 'react-router-dom';
import { AppProvider } from './provider';
import { appRoutes } from './routes';

/**
 * Renders the real app (providers, routes, guards) at `path`. A test harness that lives in the app
 * because it mounts the app; screen tests in the features go through it (see eslint.config.js).
 */
export function renderApp(path: string) {
  const router = createMemoryRouter(appRoutes, { initialEntries: [path] });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const result = render(
    <AppProvider queryClient={queryClient} env="test">
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return { ...result, router };
}
