import { useEffect } from 'react';
import { BrowserRouter, useNavigate } from 'react-router-dom';
import { useVerifyRestoredSession } from '@/features/auth';
import { setNavigator } from '@/lib/navigation';
import { AppProvider } from './provider';
import { AppRoutes } from './routes';

/** Checks a restored session, and lets the API client send the user to /login after a 401 without a page load. */
function Startup() {
  useVerifyRestoredSession();
  const navigate = useNavigate();
  useEffect(() => {
    setNavigator((to, state) => void navigate(to, { replace: true, state }));
    return () => setNavigator(null);
  }, [navigate]);
  return null;
}

export function App() {
  return (
    <AppProvider>
      <BrowserRouter>
        <Startup />
        <AppRoutes />
      </BrowserRouter>
    </AppProvider>
  );
}
