import { Skeleton } from '@mantine/core';
import { type ComponentProps, Suspense, lazy } from 'react';

const EChart = lazy(() => import('./EChart'));

/** The chart, loaded on first use (ECharts is a large chunk). */
export function Chart(props: ComponentProps<typeof EChart>) {
  return (
    <Suspense fallback={<Skeleton height={props.height ?? 280} radius="md" />}>
      <EChart {...props} />
    </Suspense>
  );
}
