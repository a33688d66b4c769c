import type { QueryClient } from '@tanstack/react-query';
import { createContext } from 'react';

/**
 * A query client given to AppProvider (tests give each test its own); otherwise the signed-in
 * frame uses the app's (query-client.ts). A context of its own, with a type-only import, so that
 * the providers every page loads do not load react-query.
 */
export const ProvidedQueryClient = createContext<QueryClient | null>(null);
