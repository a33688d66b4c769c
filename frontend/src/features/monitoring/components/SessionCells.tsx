import { Fragment } from 'react';
import { emailParts, useSessionFormat } from '../session-format';

const WHOLE = { whiteSpace: 'nowrap' } as const;

/**
 * An e-mail address that a narrow column wraps only after the "@" or before a dot: each piece
 * stays whole (a hyphen does not break it either), with a break opportunity between the pieces.
 */
export function SessionEmail({ email }: { email: string }) {
  return (
    <span data-testid="session-email">
      {emailParts(email).map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          <span style={WHOLE}>{part}</span>
        </Fragment>
      ))}
    </span>
  );
}

/** A moment in two lines at most: the day, then the time, each whole; all of it in the title. */
export function SessionDateTime({ value }: { value: string | null | undefined }) {
  const format = useSessionFormat();
  const moment = format.compactDateTime(value);
  if (!moment || !value) return <>—</>;
  return (
    <time dateTime={value} title={moment.full} data-testid="session-time">
      <span style={WHOLE}>{moment.date}</span> <span style={WHOLE}>{moment.time}</span>
    </time>
  );
}
