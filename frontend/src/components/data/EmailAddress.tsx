import { Fragment } from 'react';

/**
 * An e-mail address that wraps, when it must, only where a reader expects it to: after the "@"
 * and before a dot (<wbr>), never in the middle of a word.
 */
export function EmailAddress({ email }: { email: string }) {
  const parts = email.split(/(?<=@)|(?=\.)/);
  return (
    <span style={{ overflowWrap: 'break-word' }}>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
