import { type ComponentType, type LazyExoticComponent, Suspense, lazy } from 'react';
import { Navigate, type RouteObject, useLocation, useRoutes } from 'react-router-dom';
import { PageLoader } from '@/components/PageLoader';
import { type ReadyRouteKey, href, routes } from '@/lib/paths';
import { useSession } from '@/lib/session';
import { GuestOnly, RequireAuth, RequireRole } from './guards';
import { RouteErrorBoundary } from './RouteErrorScreen';

type Screen = LazyExoticComponent<ComponentType>;

const reportForm = lazy(() => import('@/features/reports/screens/ReportFormScreen'));
// Both monitoring routes show one screen, scoped by the caller's role.
const monitoring = lazy(() => import('@/features/monitoring/screens/MonitoringScreen'));
// The CEO's integrations, the admin's for any enterprise and the platform's: one screen, scoped by the route.
const integrations = lazy(() => import('@/features/integrations/screens/IntegrationsScreen'));
// The CEO's audit log and the admin's: one screen, scoped by the caller's role.
const audit = lazy(() => import('@/features/audit/screens/AuditLogScreen'));

/**
 * One lazily loaded screen per route that has one (`ready: true` in lib/paths.ts, which also
 * holds the paths and roles). Adding a screen is one line here.
 */
const screens = {
  login: lazy(() => import('@/features/auth/screens/LoginScreen')),
  forgotPassword: lazy(() => import('@/features/auth/screens/ForgotPasswordScreen')),
  resetPassword: lazy(() => import('@/features/auth/screens/ResetPasswordScreen')),
  acceptInvitation: lazy(() => import('@/features/auth/screens/AcceptInvitationScreen')),
  ssoCallback: lazy(() => import('@/features/auth/screens/SsoCallbackScreen')),
  dashboard: lazy(() => import('@/features/dashboard/DashboardScreen')),
  adminEnterprises: lazy(() => import('@/features/enterprises/screens/EnterpriseListScreen')),
  adminEnterpriseCreate: lazy(() => import('@/features/enterprises/screens/EnterpriseCreateScreen')),
  adminEnterprise: lazy(() => import('@/features/enterprises/screens/EnterpriseDetailScreen')),
  adminEnterpriseIntegrations: integrations,
  adminUsers: lazy(() => import('@/features/users/screens/UserListScreen')),
  adminUserCreate: lazy(() => import('@/features/users/screens/UserCreateScreen')),
  ceo: lazy(() => import('@/features/ceo/CeoHomeScreen')),
  admin: lazy(() => import('@/features/admin/AdminDashboardScreen')),
  ceoReports: lazy(() => import('@/features/reports/screens/CeoReportsScreen')),
  ceoReport: lazy(() => import('@/features/reports/screens/CeoReportScreen')),
  department: lazy(() => import('@/features/reports/screens/DepartmentHomeScreen')),
  departmentReports: lazy(() => import('@/features/reports/screens/DepartmentReportsScreen')),
  departmentReportCreate: reportForm,
  departmentReport: lazy(() => import('@/features/reports/screens/DepartmentReportScreen')),
  departmentReportEdit: reportForm,
  adminMonitoring: monitoring,
  adminIntegrations: integrations,
  adminAudit: audit,
  ceoMonitoring: monitoring,
  ceoIntegrations: integrations,
  audit,
  departmentSpreadsheet: lazy(() => import('@/features/spreadsheets/screens/SpreadsheetListScreen')),
  // The editor's chunk brings the grid and the engine's WebAssembly, and only it does.
  departmentSpreadsheetEditor: lazy(() => import('@/features/spreadsheets/screens/SpreadsheetEditorScreen')),
  messages: lazy(() => import('@/features/messages/screens/MessagesScreen')),
  apiTokens: lazy(() => import('@/features/integrations/screens/ApiTokensScreen')),
  profile: lazy(() => import('@/features/account/screens/ProfileScreen')),
} satisfies Record<Exclude<ReadyRouteKey, 'home'>, Screen>;

/** The signed-in frame (sidebar, menus): not needed, so not loaded, on the signed-out pages. */
const AppLayout = lazy(() => import('./layout/AppLayout').then((module) => ({ default: module.AppLayout })));

const NotFoundScreen = lazy(() => import('@/features/misc/NotFoundScreen'));

type ScreenKey = keyof typeof screens;
const GUEST_SCREENS = (Object.keys(screens) as ScreenKey[]).filter((key) => routes[key].access === 'guest');
/** Open to anyone, signed in or not, outside of the app frame (the invitation link). */
const PUBLIC_SCREENS = (Object.keys(screens) as ScreenKey[]).filter((key) => routes[key].access === 'public');
const SIGNED_IN_SCREENS = (Object.keys(screens) as ScreenKey[]).filter((key) => routes[key].access !== 'guest' && routes[key].access !== 'public');

/** Unknown paths: inside the app frame when signed in, on their own otherwise. */
function NotFoundRoute() {
  const signedIn = useSession().status === 'signed_in';
  return signedIn ? (
    <Suspense fallback={<PageLoader fullScreen />}>
      <AppLayout>
        <NotFoundScreen />
      </AppLayout>
    </Suspense>
  ) : (
    <Suspense fallback={<PageLoader fullScreen />}>
      {/* The signed-out frame (logo, language switch, main landmark) is the screen's own. */}
      <NotFoundScreen />
    </Suspense>
  );
}

export const appRoutes: RouteObject[] = [
  { path: routes.home.path, element: <Navigate to={href('dashboard')} replace /> },
  {
    element: (
      <Suspense fallback={<PageLoader fullScreen />}>
        <GuestOnly />
      </Suspense>
    ),
    children: GUEST_SCREENS.map((key) => {
      const Screen = screens[key];
      return { path: routes[key].path, element: <Screen /> };
    }),
  },
  ...PUBLIC_SCREENS.map((key): RouteObject => {
    const Screen = screens[key];
    return {
      path: routes[key].path,
      element: (
        <Suspense fallback={<PageLoader fullScreen />}>
          <Screen />
        </Suspense>
      ),
    };
  }),
  {
    element: (
      <RequireAuth>
        <Suspense fallback={<PageLoader fullScreen />}>
          <AppLayout />
        </Suspense>
      </RequireAuth>
    ),
    children: SIGNED_IN_SCREENS.map((key) => {
      const Screen = screens[key];
      return {
        path: routes[key].path,
        element: (
          <RequireRole access={routes[key].access}>
            <Screen />
          </RequireRole>
        ),
      };
    }),
  },
  { path: '*', element: <NotFoundRoute /> },
];

/**
 * The app's routes, inside whichever router the caller provides (BrowserRouter in the app, a
 * MemoryRouter in tests). React Router's declarative mode: the app loads no data through the
 * router, and its data router would add some 17 kB (gzip) to every page. A screen that fails to
 * load or render shows RouteErrorScreen until the user navigates.
 */
export function AppRoutes() {
  const location = useLocation();
  const element = useRoutes(appRoutes);
  return <RouteErrorBoundary location={location}>{element}</RouteErrorBoundary>;
}
