import { type APIRequestContext, expect } from '@playwright/test';

/**
 * The e-mails the server sent, read from the real mail server the test run started (MailDev,
 * scripts/mail/start.sh, MAIL_CATCHER_URL): its messages to an address, and the links in them.
 */

export const MAIL_CATCHER = process.env.MAIL_CATCHER_URL ?? 'http://127.0.0.1:1080';
export type Mail = { id: string; subject: string; to: string; text: string; html: string };
type MailDevMessage = { id: string; subject: string; headers: { to: string }; text?: string; html?: string };

/** The messages MailDev holds for an address (its `GET /email?to.address=`), the newest first. */
export async function mailsTo(request: APIRequestContext, address: string): Promise<Mail[]> {
  const response = await request.get(`${MAIL_CATCHER}/email`, { params: { 'to.address': address } });
  expect(response.status(), `the mail server at ${MAIL_CATCHER}`).toBe(200);
  const found = (await response.json()) as MailDevMessage[];
  return found.reverse().map((m) => ({ id: m.id, subject: m.subject, to: m.headers.to, text: m.text ?? '', html: m.html ?? '' }));
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
