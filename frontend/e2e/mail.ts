import { type APIRequestContext, expect } from '@playwright/test';

/**
 * The e-mails the server sent, read from the real SMTP catcher the test run started
 * (scripts/mail/catcher.py, MAIL_CATCHER_URL): its messages to an address, and the links in them.
 */

export const MAIL_CATCHER = process.env.MAIL_CATCHER_URL ?? 'http://127.0.0.1:1080';
export type Mail = { subject: string; to: string | string[]; text: string; html: string; raw: string };

/** The messages the catcher holds for an address, the newest first. */
export async function mailsTo(request: APIRequestContext, address: string): Promise<Mail[]> {
  const response = await request.get(`${MAIL_CATCHER}/api/messages?to=${encodeURIComponent(address)}`);
  expect(response.status(), `the mail catcher at ${MAIL_CATCHER}`).toBe(200);
  return (await response.json()) as Mail[];
}

/** Waits for a message to `address` that `wanted` picks (activity is batched: up to ~20 s). */
export async function waitForMail(request: APIRequestContext, address: string, wanted: (mail: Mail) => boolean, timeout = 25_000): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(
      async () => {
        found = (await mailsTo(request, address)).find(wanted);
        return found !== undefined;
      },
      { message: `an e-mail to ${address}`, timeout, intervals: [250, 500, 1000] },
    )
    .toBe(true);
  return found!;
}

/** The link to `path` in a message's text: the server's public address, then the app's path. */
export function linkIn(mail: Mail, path: string): string {
  const match = mail.text.match(new RegExp(`https?://[^\\s"<>]+${path.replace(/[?]/g, '\\?')}[^\\s"<>]*`));
  expect(match, `a link to ${path} in:\n${mail.text}`).not.toBeNull();
  return match![0];
}
