// A scheduling-service app written with oauth4webapi alone (no OpenID Connect), as an app for
// the other scheduling service would be: RFC 8414 discovery, an authorization with PKCE and
// state for its older scope names, the code grant, calls with the Bearer token to the identity
// check and to the Zapier app's sample bookings, a refresh, and revocation. tests/it/clients.rs
// plays the user: this script prints the authorization URL, reads back the URL the browser was
// redirected to, and prints its findings as JSON on stdout.
//
// Environment: ISSUER, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI.
import * as oauth from 'oauth4webapi';
import * as readline from 'node:readline';

const { ISSUER, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI } = process.env;
// Test servers listen on plain HTTP on loopback.
const insecure = { [oauth.allowInsecureRequests]: true };

async function nextLine() {
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    rl.close();
    return line.trim();
  }
  throw new Error('stdin closed before the redirect URL came');
}

const issuer = new URL(ISSUER);
const as = await oauth.processDiscoveryResponse(
  issuer,
  await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
);
const client = { client_id: CLIENT_ID };
const auth = oauth.ClientSecretBasic(CLIENT_SECRET);

const verifier = oauth.generateRandomCodeVerifier();
const state = oauth.generateRandomState();
const url = new URL(as.authorization_endpoint);
url.search = new URLSearchParams({
  client_id: CLIENT_ID,
  redirect_uri: REDIRECT_URI,
  response_type: 'code',
  scope: 'READ_BOOKING READ_PROFILE',
  state,
  code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
  code_challenge_method: 'S256',
}).toString();
console.log(JSON.stringify({ authorization_url: url.href }));

const params = oauth.validateAuthResponse(as, client, new URL(await nextLine()), state);
const tokens = await oauth.processAuthorizationCodeResponse(
  as,
  client,
  await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT_URI, verifier, insecure),
);

async function get(path) {
  const resp = await oauth.protectedResourceRequest(
    tokens.access_token, 'GET', new URL(path, ISSUER), new Headers(), null, insecure,
  );
  return { status: resp.status, body: await resp.json() };
}
const me = await get('/api/auth/oauth/me');
const bookings = await get('/api/integrations/zapier/listBookings');

const refreshed = await oauth.processRefreshTokenResponse(
  as,
  client,
  await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token, insecure),
);
await oauth.processRevocationResponse(
  await oauth.revocationRequest(as, client, auth, refreshed.access_token, insecure),
);
// The library turns a 401 with a WWW-Authenticate challenge into an error carrying it.
let revoked;
try {
  await oauth.protectedResourceRequest(
    refreshed.access_token, 'GET', new URL('/api/auth/oauth/me', ISSUER), new Headers(), null, insecure,
  );
  revoked = { accepted: true };
} catch (e) {
  if (!(e instanceof oauth.WWWAuthenticateChallengeError)) throw e;
  revoked = { status: e.response.status, error: e.cause[0].parameters.error };
}

console.log(JSON.stringify({
  issuer: as.issuer,
  scope: tokens.scope,
  token_type: tokens.token_type,
  me,
  bookings,
  refreshed: { access_token: Boolean(refreshed.access_token), scope: refreshed.scope, refresh_token: Boolean(refreshed.refresh_token) },
  revoked,
}));
