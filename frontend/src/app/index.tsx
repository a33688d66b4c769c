import { useEffect, useState } from 'react';
import { RouterProvider, createBrowserRouter } from 'react-router-dom';
import { useVerifyRestoredSession } from '@/features/auth';
import { setNavigator } from '@/lib/navigation';
import { AppProvider } from './provider';
import { appRoutes } from './routes';

function Router() {
  const [router] = useState(() => createBrowserRouter(appRoutes));
  useVerifyRestoredSession();

  // Lets the API client send the user to /login after a 401 without a page load.
  useEffect(() => {
    setNavigator((to, state) => void router.navigate(to, { replace: true, state }));
    return () => setNavigator(null);
  }, [router]);

  return <RouterProvider router={router} />;
}

export function App() {
  return (
    <AppProvider>
      <Router />
    </AppProvider>
  );
}
