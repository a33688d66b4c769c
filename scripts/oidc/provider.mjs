// A real OpenID Connect provider for the tests' single sign-on: panva's oidc-provider (certified)
// runs the whole protocol (discovery, authorization code with PKCE, client authentication, signed
// ID tokens, expiry of codes); only the sign-in page is ours, and it lets in any e-mail address,
// so a test chooses who signs in by typing it. Everything lives in memory: a restart forgets
// sessions, codes and the signing key.
//
//   OIDC_PORT           default 2590 (listens on 127.0.0.1; the issuer says localhost, the name
//                       browsers and the server's configuration use)
//   OIDC_CLIENTS        JSON array of {client_id, client_secret, redirect_uris, code_ttl_seconds?};
//                       default: "platform" / "platform-secret" (codes live 60 s) and
//                       "platform-expiring" / "expiring-secret" (codes live 1 s: the tests of an
//                       expired code), both for http://localhost:8080/sign-in/sso
//   OIDC_REDIRECT_URIS  comma-separated: replaces every client's redirect_uris (rarely needed, see
//                       isLocalSsoCallback)
//   OIDC_TLS_CERT, OIDC_TLS_KEY  PEM files: serve over HTTPS with this certificate (a test
//                       authority's, for a provider behind an enterprise's own CA); the issuer is
//                       then https://localhost:<port>
//
// oidc-provider 8.x rather than 9.x: 9.x declares Node.js 22 its minimum (it prints "Unsupported
// runtime" on startup) and the machines run Node.js 20; 8.x supports Node.js 18 and later.

import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT || 2590);
// What /health answers: the hash of this file, so that start.sh replaces a provider an earlier
// run left answering with older code.
const version = createHash('sha256').update(readFileSync(new URL(import.meta.url))).digest('hex');
const tls = process.env.OIDC_TLS_CERT && process.env.OIDC_TLS_KEY
  ? { cert: readFileSync(process.env.OIDC_TLS_CERT), key: readFileSync(process.env.OIDC_TLS_KEY) }
  : undefined;
const issuer = `${tls ? 'https' : 'http'}://localhost:${port}`;

function fail(message) {
  console.error(`oidc: ${message}`);
  process.exit(1);
}

function readClients() {
  let clients = [
    { client_id: 'platform', client_secret: 'platform-secret', redirect_uris: ['http://localhost:8080/sign-in/sso'] },
    {
      client_id: 'platform-expiring',
      client_secret: 'expiring-secret',
      redirect_uris: ['http://localhost:8080/sign-in/sso'],
      code_ttl_seconds: 1,
    },
  ];
  if (process.env.OIDC_CLIENTS) {
    try {
      clients = JSON.parse(process.env.OIDC_CLIENTS);
    } catch (error) {
      fail(`OIDC_CLIENTS is not JSON: ${error.message}`);
    }
    if (!Array.isArray(clients) || clients.length === 0) fail('OIDC_CLIENTS must be a non-empty JSON array');
  }
  const redirectOverride = (process.env.OIDC_REDIRECT_URIS || '').split(',').map((uri) => uri.trim()).filter(Boolean);
  return clients.map((client) => {
    const ttl = client.code_ttl_seconds ?? 60;
    if (!client.client_id || !client.client_secret) fail('every client needs a client_id and a client_secret');
    if (!Number.isInteger(ttl) || ttl < 1) fail(`code_ttl_seconds of ${client.client_id} must be a whole number of seconds, 1 or more`);
    return { ...client, code_ttl_seconds: ttl, redirect_uris: redirectOverride.length ? redirectOverride : client.redirect_uris };
  });
}

const clients = readClients();
const codeTtl = new Map(clients.map((client) => [client.client_id, client.code_ttl_seconds]));

// The tests start the server on whatever port is free, so the exact redirect_uris registered above
// cannot name it. Our own sign-in callback on the loopback host is accepted on any port instead
// (the maintainer's "redirect URI wildcards" recipe: Client.prototype.redirectUriAllowed is the one
// check the authorization endpoint makes). Any other URI must be registered exactly, so a test can
// still prove that a foreign redirect_uri is refused. The token endpoint keeps its own exact
// comparison with the redirect_uri the code was issued for.
function isLocalSsoCallback(value) {
  let url;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1')
    && url.port !== '' && url.pathname === '/sign-in/sso' && !url.username && !url.password && !url.hash;
}

// Every e-mail address is an account. The subject is derived from the address so that the same
// person gets the same sub across restarts, as a real provider's would, and it is the account's
// id (what oidc-provider puts in a back-channel logout token's sub); the address is found again
// by it (`addresses`). A test may post more
// fields with the address to get what another provider might send (the page does not show them):
// `subject`, another sub for the same address, and `email_verified`, "false" or "omit" (the claim
// left out), which travel in the account's id after a space (which no address holds); `amr`
// (comma-separated methods, RFC 8176) and `acr`, which the ID token carries as the login's.
const MULTI_FACTOR_ACR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';
const addresses = new Map();
const subjectOf = (email) => createHash('sha256').update(email).digest('hex').slice(0, 32);
function accountId(email, form) {
  const extra = new URLSearchParams();
  const subject = (form.get('subject') || '').trim();
  if (subject) extra.set('sub', subject.slice(0, 255));
  const verified = form.get('email_verified');
  if (verified === 'false' || verified === 'omit') extra.set('verified', verified);
  if (extra.size) return `${email} ${extra}`;
  addresses.set(subjectOf(email), email);
  return subjectOf(email);
}

function account(id) {
  const [first, extra = ''] = id.split(' ');
  const email = addresses.get(first) || first;
  const options = new URLSearchParams(extra);
  const sub = options.get('sub') || subjectOf(email);
  const words = email.split('@')[0].split(/[._+-]+/).filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1));
  const claims = {
    sub, email, email_verified: true, name: words.join(' ') || email, given_name: words[0] || email,
  };
  // "ada@…" has no family name; a real provider leaves the claim out rather than send "".
  if (words.length > 1) claims.family_name = words.slice(1).join(' ');
  if (options.get('verified') === 'false') claims.email_verified = false;
  if (options.get('verified') === 'omit') delete claims.email_verified;
  return { accountId: id, claims: async () => claims };
}

// The ID token's key: generated at every start, so nothing secret sits in the repository.
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' };

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title, body) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} – Test identity provider</title>
</head>
<body>
<main>
<h1>Test identity provider</h1>
${body}
</main>
</body>
</html>
`;
}

function signInPage(uid, clientId, { email = '', error } = {}) {
  const action = `/interaction/${encodeURIComponent(uid)}`;
  const problem = error ? `<p id="email-error" role="alert">${escape(error)}</p>\n` : '';
  const described = error ? ' aria-invalid="true" aria-describedby="email-error"' : '';
  return page('Sign in', `<p>Signing in to ${escape(clientId)}. Any e-mail address is accepted.</p>
${problem}<form method="post" action="${action}/login">
<label for="email">Email</label>
<input type="text" id="email" name="email" value="${escape(email)}" autocomplete="email" inputmode="email" spellcheck="false" required autofocus${described}>
<button type="submit">Sign in</button>
<button type="submit" formaction="${action}/cancel" formnovalidate>Cancel</button>
</form>`);
}

const provider = new Provider(issuer, {
  clients: clients.map((client) => ({
    client_id: client.client_id,
    client_secret: client.client_secret,
    redirect_uris: client.redirect_uris,
    response_types: ['code'],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: 'client_secret_basic',
  })),
  // The registered method is basic; a secret client may use either form (oidc-provider accepts
  // both for it), and nothing else is on offer.
  clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
  responseTypes: ['code'],
  pkce: { methods: ['S256'], required: () => true },
  scopes: ['openid', 'email', 'profile'],
  // The ID token's acr is one of these; a relying party asks for the multi-factor one with
  // acr_values (without a list, oidc-provider leaves acr out of every token).
  acrValues: ['urn:enterprise-platform:test:password', MULTI_FACTOR_ACR],
  claims: {
    // The login's methods, in every ID token that has any (a claim outside the scopes would be
    // left out unless a client asked for it by name).
    openid: ['sub', 'amr'],
    email: ['email', 'email_verified'],
    profile: ['name', 'given_name', 'family_name'],
  },
  // By default a code flow's ID token carries only sub and the claims come from userinfo (the
  // spec's letter); a relying party that reads the ID token alone needs them in it.
  conformIdTokenClaims: false,
  findAccount: async (_ctx, id) => account(id),
  jwks: { keys: [signingKey] },
  cookies: {
    keys: [randomBytes(32).toString('hex')],
    // 8.x defaults the session cookie to SameSite=None, which browsers drop unless it is Secure,
    // and this runs on plain http. Lax still reaches us on the top-level redirects of a sign-in.
    // oidc-provider only adds Secure when the request itself is https, so http works as it is.
    long: { httpOnly: true, sameSite: 'lax', signed: true },
    short: { httpOnly: true, sameSite: 'lax', signed: true },
  },
  ttl: {
    AuthorizationCode: (_ctx, _code, client) => codeTtl.get(client.clientId) ?? 60,
    AccessToken: 10 * 60,
    IdToken: 10 * 60,
    Interaction: 10 * 60,
    Grant: 60 * 60,
    Session: 60 * 60,
  },
  features: {
    devInteractions: { enabled: false },
    // A relying party registers itself (RFC 7591) with the back-channel logout address it
    // chooses (the tests of back-channel logout name their server's), and signing out here
    // (RP-initiated logout's end_session_endpoint) posts a logout token to it.
    registration: { enabled: true },
    backchannelLogout: { enabled: true },
  },
  renderError: async (ctx, out) => {
    ctx.type = 'html';
    const details = Object.entries(out).map(([key, value]) => `<dt>${escape(key)}</dt><dd>${escape(value)}</dd>`).join('\n');
    ctx.body = page('Error', `<h2>The sign-in cannot continue</h2>\n<dl>\n${details}\n</dl>`);
  },
});

const { redirectUriAllowed } = provider.Client.prototype;
provider.Client.prototype.redirectUriAllowed = function allowed(value) {
  return redirectUriAllowed.call(this, value) || isLocalSsoCallback(value);
};

// One line per request: what was asked, how it ended, and the protocol error if there was one.
const errorEvents = ['authorization.error', 'grant.error', 'userinfo.error', 'end_session.error', 'discovery.error',
  'jwks.error', 'introspection.error', 'revocation.error', 'server_error'];
for (const event of errorEvents) {
  provider.on(event, (ctx, error) => {
    // error_detail is what the client is not told (e.g. "authorization code is expired").
    ctx.state.oidcError = [error.error || error.message, error.error_description, error.error_detail]
      .filter(Boolean).join(': ');
    // A server_error is a bug here or in the library: its stack is the only way to find it.
    if (event === 'server_error') console.error(error);
  });
}
provider.use(async (ctx, next) => {
  const started = Date.now();
  try {
    await next();
  } finally {
    const error = ctx.state.oidcError ? ` ${ctx.state.oidcError}` : '';
    console.log(`${new Date().toISOString()} ${ctx.method} ${ctx.path} ${ctx.status} ${Date.now() - started}ms${error}`);
  }
});

// The form's body with Node alone: it is one short urlencoded field.
async function formBody(req) {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 16 * 1024) throw Object.assign(new Error('form too large'), { status: 413 });
  }
  return new URLSearchParams(body);
}

// The interaction the cookie points at, or undefined when it has expired, belongs to another
// sign-in (another tab) or was never started in this browser.
async function currentInteraction(ctx, uid) {
  try {
    const interaction = await provider.interactionDetails(ctx.req, ctx.res);
    return interaction.uid === uid ? interaction : undefined;
  } catch (error) {
    if (error.name === 'SessionNotFound') return undefined;
    throw error;
  }
}

function expired(ctx) {
  ctx.status = 400;
  ctx.type = 'html';
  ctx.body = page('Sign-in expired', '<p>This sign-in has expired or was started in another browser. Go back to the application and sign in again.</p>');
}

const noCache = (ctx) => ctx.set('Cache-Control', 'no-store');

// Our sign-in page, ahead of the provider's own routes. It answers both prompts at once (who the
// person is, and that the client may have openid email profile), so no consent screen follows.
provider.use(async (ctx, next) => {
  if (ctx.method === 'GET' && ctx.path === '/health') {
    ctx.body = version;
    return;
  }
  const match = /^\/interaction\/([^/]+)(?:\/(login|cancel))?$/.exec(ctx.path);
  if (!match) {
    await next();
    return;
  }
  const [, uid, action] = match;
  noCache(ctx);
  if ((ctx.method === 'GET') !== (action === undefined) || (ctx.method !== 'GET' && ctx.method !== 'POST')) {
    ctx.status = 405;
    return;
  }
  const interaction = await currentInteraction(ctx, uid);
  if (!interaction) {
    expired(ctx);
    return;
  }
  const clientId = interaction.params.client_id;
  if (action === undefined) {
    ctx.type = 'html';
    ctx.body = signInPage(uid, clientId);
    return;
  }
  let result;
  if (action === 'cancel') {
    result = { error: 'access_denied', error_description: 'The person cancelled' };
  } else {
    const form = await formBody(ctx.req);
    const email = (form.get('email') || '').trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = signInPage(uid, clientId, { email, error: 'Enter an e-mail address, like ada@example.com.' });
      return;
    }
    // The earlier grant is kept only when the same person signs in again: a grant belongs to one
    // account, and someone else typing their address here starts afresh.
    const { details } = interaction.prompt;
    const id = accountId(email, form);
    const grant = interaction.grantId && interaction.session?.accountId === id
      ? await provider.Grant.find(interaction.grantId)
      : new provider.Grant({ accountId: id, clientId });
    grant.addOIDCScope('openid email profile');
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(details.missingResourceScopes || {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const login = { accountId: id };
    const amr = (form.get('amr') || '').split(',').map((method) => method.trim()).filter(Boolean);
    if (amr.length) login.amr = amr;
    if (form.get('acr')) login.acr = form.get('acr');
    result = { login, consent: { grantId: await grant.save() } };
  }
  // interactionFinished would write the response itself, behind Koa's back: the same result,
  // with the redirect left to Koa.
  const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
  ctx.status = 303;
  ctx.redirect(returnTo);
});

// oidc-provider checks a static client only when it is first used; a mistake in OIDC_CLIENTS
// should stop the start instead of failing some test's sign-in later.
for (const { client_id: clientId } of clients) {
  try {
    await provider.Client.find(clientId);
  } catch (error) {
    fail(`client ${clientId}: ${error.error_description || error.message}`);
  }
}

const server = (tls ? createServer(tls, provider.callback()) : provider).listen(port, '127.0.0.1', () => {
  console.log(`oidc: issuer ${issuer}, clients ${clients.map((client) => client.client_id).join(', ')}`);
});
server.on('error', (error) => fail(error.message));
// Nothing to flush: everything is in memory and meant to be forgotten.
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
