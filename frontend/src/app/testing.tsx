import { act, render } from '@testing-library/react';
import { QueryClient } from '@tanstack/react-query';
import { useLayoutEffect } from 'react';
import { type Location, MemoryRouter, type NavigateFunction, useLocation, useNavigate } from 'react-router-dom';
import { AppProvider } from './provider';
import { AppRoutes } from './routes';
// The toasts load lazily in the app (provider.tsx); a test of the app imports them with it, so that
// a toast shown while a busy machine transforms the next screen is on the page at once (a created
// spreadsheet's toast missed its 15 s in CI while the editor's modules loaded beside it).
import './Toasts';

type Seen = { location: Location; navigate: NavigateFunction };

/** Tells the test where the app is, and lends it the router's navigate. */
function RouterProbe({ onRender }: { onRender: (seen: Seen) => void }) {
  const location = useLocation();
  const navigate = useNavigate();
  useLayoutEffect(() => onRender({ location, navigate }), [onRender, location, navigate]);
  return null;
}

/**
 * Renders the real app (providers, routes, guards) at `path`. A test harness that lives in the app
 * because it mounts the app; screen tests in the features go through it (see eslint.config.js).
 * `location()` is where the app is now; `navigate(to)` goes elsewhere as a link would.
 */
export function renderApp(path: string) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  let seen: Seen | undefined;
  const onRender = (latest: Seen) => {
    seen = latest;
  };
  const result = render(
    <AppProvider queryClient={queryClient} env="test">
      <MemoryRouter initialEntries={[path]}>
        <RouterProbe onRender={onRender} />
        <AppRoutes />
      </MemoryRouter>
    </AppProvider>,
  );
  const current = (): Seen => {
    if (!seen) throw new Error('renderApp: the router has not rendered yet');
    return seen;
  };
  const location = (): Location => current().location;
  const navigate = (to: string) => act(() => void current().navigate(to));
  return { ...result, location, navigate, queryClient };
}
