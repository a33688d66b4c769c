import { type ReactNode, useState } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { type RouteAccess, fallbackPathFor, href, isAllowed } from '@/lib/paths';
import { type SessionEndReason, useSession } from '@/lib/session';

/** Where the sign-in page sends the user back to (set when a guard bounced them). */
export type LoginLocationState = {
  from?: { pathname: string; search?: string; hash?: string };
  reason?: SessionEndReason;
};

/**
 * Signed-in routes: a visitor without a session goes to /login, remembering the page to come back
 * to, unless the user just signed out from here.
 */
export function RequireAuth({ children }: { children?: ReactNode }) {
  const current = useSession();
  const location = useLocation();
  // Whether this guard has shown a signed-in page: state adjusted during render, not a ref read
  // during render (https://react.dev/learn/you-might-not-need-an-effect#adjusting-some-state-when-a-prop-changes).
  const [sawSession, setSawSession] = useState(false);
  if (current.status === 'signed_in' && !sawSession) setSawSession(true);
  if (current.status !== 'signed_in') {
    const signedOutHere = sawSession && current.reason === 'signed_out';
    const state: LoginLocationState = signedOutHere ? { reason: 'signed_out' } : { from: location, reason: current.reason };
    return <Navigate to={href('login')} replace state={state} />;
  }
  return children ?? <Outlet />;
}

/** A route limited to some roles; anyone else goes to the landing page of their role. */
export function RequireRole({ access, children }: { access: RouteAccess; children: ReactNode }) {
  const current = useSession();
  if (current.status !== 'signed_in') return <RequireAuth />;
  if (!isAllowed(current.user.role, access)) return <Navigate to={fallbackPathFor(current.user.role)} replace />;
  return children;
}

/** Signed-out pages (/login, /forgot-password): a signed-in user goes on to where they were headed. */
export function GuestOnly({ children }: { children?: ReactNode }) {
  const current = useSession();
  const location = useLocation();
  if (current.status === 'signed_in') {
    const from = (location.state as LoginLocationState | null)?.from;
    const target = from?.pathname && from.pathname !== href('login') ? from : href('dashboard');
    return <Navigate to={target} replace />;
  }
  return children ?? <Outlet />;
}
