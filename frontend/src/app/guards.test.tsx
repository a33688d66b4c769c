import { act, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import type { Role } from '@/api/generated/model';
import { type ReadyRouteKey, isAllowed, routes } from '@/lib/paths';
import { session } from '@/lib/session';
import { jsonResponse, makeUser, serverErrors } from '@/testing/fixtures';
import { renderApp } from '@/app/testing';
import { GuestOnly, RequireAuth, RequireRole } from './guards';

function Where() {
  return <p data-testid="where">{useLocation().pathname}</p>;
}

/** The guards alone, on a few routes, each screen printing where it is. */
function renderGuarded(path: string, access: readonly Role[]) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route
          path="/login"
          element={
            <GuestOnly>
              <Where />
            </GuestOnly>
          }
        />
        <Route element={<RequireAuth />}>
          <Route
            path="/admin"
            element={
              <RequireRole access={['PlatformAdmin']}>
                <Where />
              </RequireRole>
            }
          />
          <Route
            path="/ceo"
            element={
              <RequireRole access={['EnterpriseCeo']}>
                <Where />
              </RequireRole>
            }
          />
          <Route
            path="/dashboard"
            element={
              <RequireRole access={['PlatformAdmin', 'EnterpriseCeo', 'DepartmentHead', 'DepartmentUser']}>
                <Where />
              </RequireRole>
            }
          />
          <Route
            path="/restricted"
            element={
              <RequireRole access={access}>
                <Where />
              </RequireRole>
            }
          />
        </Route>
      </Routes>
    </MemoryRouter>,
  );
}

describe('guards', () => {
  it('sends a visitor without a session to /login', () => {
    renderGuarded('/dashboard', ['PlatformAdmin']);
    expect(screen.getByTestId('where')).toHaveTextContent('/login');
  });

  it('sends a signed-in user away from /login to /dashboard', () => {
    session.start('t', makeUser('DepartmentUser'));
    renderGuarded('/login', []);
    expect(screen.getByTestId('where')).toHaveTextContent('/dashboard');
  });

  it.each<[Role, string]>([
    ['PlatformAdmin', '/admin'],
    ['EnterpriseCeo', '/ceo'],
    ['DepartmentHead', '/dashboard'],
    ['DepartmentUser', '/dashboard'],
  ])('sends a %s whose role is not allowed to %s', (role, expected) => {
    session.start('t', makeUser(role));
    renderGuarded('/restricted', []);
    expect(screen.getByTestId('where')).toHaveTextContent(expected);
  });

  it('lets an allowed role through', () => {
    session.start('t', makeUser('EnterpriseCeo'));
    renderGuarded('/restricted', ['EnterpriseCeo', 'PlatformAdmin']);
    expect(screen.getByTestId('where')).toHaveTextContent('/restricted');
  });
});

describe('the screens each role may open (SPEC §2)', () => {
  const readyScreens = (Object.keys(routes) as (keyof typeof routes)[]).filter((key): key is ReadyRouteKey => routes[key].ready);
  const signedIn = (key: ReadyRouteKey) => routes[key].access !== 'guest' && routes[key].access !== 'public';

  it('are among these signed-in screens, and no others', () => {
    expect(readyScreens.filter(signedIn).sort()).toEqual(
      [
        'dashboard',
        'admin',
        'adminEnterprises',
        'adminEnterpriseCreate',
        'adminEnterprise',
        'adminEnterpriseIntegrations',
        'adminUserCreate',
        'adminUsers',
        'adminMonitoring',
        'adminIntegrations',
        'adminAudit',
        'ceo',
        'ceoReports',
        'ceoReport',
        'ceoMonitoring',
        'ceoIntegrations',
        'audit',
        'department',
        'departmentReports',
        'departmentReportCreate',
        'departmentReport',
        'departmentReportEdit',
        'departmentSpreadsheet',
        'departmentSpreadsheetEditor',
        'messages',
        'apiTokens',
        'profile',
      ].sort(),
    );
  });

  it.each<[Role, string[]]>([
    [
      'PlatformAdmin',
      [
        '/dashboard',
        '/admin',
        '/admin/enterprises',
        '/admin/enterprises/create',
        '/admin/enterprises/:id',
        '/admin/enterprises/:id/integrations',
        '/admin/users/create',
        '/admin/users',
        '/admin/monitoring',
        '/admin/integrations',
        '/admin/audit',
        '/ceo/reports/:id',
        '/messages',
        '/settings/api-tokens',
        '/settings/profile',
      ],
    ],
    [
      'EnterpriseCeo',
      [
        '/dashboard',
        '/admin/users/create',
        '/admin/users',
        '/ceo',
        '/ceo/reports',
        '/ceo/reports/:id',
        '/ceo/monitoring',
        '/ceo/integrations',
        '/audit',
        '/department/:id/spreadsheet',
        '/department/:id/spreadsheet/:spreadsheetId',
        '/messages',
        '/settings/api-tokens',
        '/settings/profile',
      ],
    ],
    [
      'DepartmentHead',
      [
        '/dashboard',
        '/department/:id',
        '/department/:id/reports',
        '/department/:id/reports/create',
        '/department/:id/reports/:reportId',
        '/department/:id/reports/:reportId/edit',
        '/department/:id/spreadsheet',
        '/department/:id/spreadsheet/:spreadsheetId',
        '/messages',
        '/settings/api-tokens',
        '/settings/profile',
      ],
    ],
    [
      'DepartmentUser',
      [
        '/dashboard',
        '/department/:id',
        '/department/:id/reports',
        '/department/:id/reports/create',
        '/department/:id/reports/:reportId',
        '/department/:id/reports/:reportId/edit',
        '/department/:id/spreadsheet',
        '/department/:id/spreadsheet/:spreadsheetId',
        '/messages',
        '/settings/api-tokens',
        '/settings/profile',
      ],
    ],
  ])('a %s may open %j', (role, paths) => {
    const allowed = readyScreens.filter((key) => signedIn(key) && isAllowed(role, routes[key].access));
    expect(allowed.map((key) => routes[key].path)).toEqual(paths);
  });
});

describe('the app routes', () => {
  it('shows the sign-in screen for /dashboard without a session', async () => {
    const { location } = renderApp('/dashboard');
    expect(await screen.findByRole('heading', { name: 'Sign in to Enterprise Platform' })).toBeInTheDocument();
    expect(location().pathname).toBe('/login');
  });

  it('redirects / to /login via /dashboard without a session', async () => {
    const { location } = renderApp('/');
    await screen.findByRole('textbox', { name: 'Email' });
    expect(location().pathname).toBe('/login');
  });

  it('takes a signed-in user from /login to the dashboard', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse(200, makeUser())),
    );
    session.start('t', makeUser('EnterpriseCeo', { fullName: 'Grace Hopper' }));
    const { location } = renderApp('/login');
    expect(await screen.findByRole('heading', { name: 'Welcome, Grace Hopper' })).toBeInTheDocument();
    expect(location().pathname).toBe('/dashboard');
  });

  it('sends a CEO who opens an admin screen to their own home', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => serverErrors.notFound()),
    );
    session.start('t', makeUser('EnterpriseCeo'));
    const { location } = renderApp('/admin/enterprises');
    await waitFor(() => expect(location().pathname).toBe('/ceo'));
  });

  it('sends an admin who opens the CEO home to a screen that exists, without looping', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => serverErrors.notFound()),
    );
    session.start('t', makeUser('PlatformAdmin', { fullName: 'Ada Admin' }));
    const { location } = renderApp('/ceo');
    expect(await screen.findByRole('heading', { level: 1, name: 'Administration' })).toBeInTheDocument();
    expect(location().pathname).toBe('/admin');
  });

  it('shows the not-found screen for an unknown path', async () => {
    renderApp('/no/such/page');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the sign-in page' })).toHaveAttribute('href', '/login');
  });

  it('after sign-in goes back to the page the guard bounced from', async () => {
    const { location } = renderApp('/dashboard?tab=1');
    await screen.findByRole('textbox', { name: 'Email' });
    act(() => session.start('t', makeUser('DepartmentHead', { fullName: 'Alan Turing' })));
    expect(await screen.findByRole('heading', { name: 'Welcome, Alan Turing' })).toBeInTheDocument();
    expect(location().pathname + location().search).toBe('/dashboard?tab=1');
  });
});
