// An OpenID Connect relying party written with openid-client v6 (built on oauth4webapi), as an
// app would use it, against Docket. tests/it/clients.rs plays the user: this script prints the
// authorization URL it built, reads back the URL the browser was redirected to, then redeems the
// code, validates the ID token, reads userinfo and refreshes. Its findings go to stdout as JSON.
//
// Environment: ISSUER, CLIENT_ID, CLIENT_SECRET (empty for a public client), REDIRECT_URI, and
// MAX_AGE (optional: sent as max_age, and the library then checks the ID token's auth_time).
import * as client from 'openid-client';
import * as readline from 'node:readline';

const { ISSUER, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, MAX_AGE } = process.env;
const maxAge = MAX_AGE ? Number(MAX_AGE) : undefined;

async function nextLine() {
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    rl.close();
    return line.trim();
  }
  throw new Error('stdin closed before the redirect URL came');
}

const auth = CLIENT_SECRET ? client.ClientSecretBasic(CLIENT_SECRET) : client.None();
const config = await client.discovery(
  new URL(ISSUER),
  CLIENT_ID,
  CLIENT_SECRET ? { client_secret: CLIENT_SECRET } : {},
  auth,
  // Test servers listen on plain HTTP on loopback.
  { execute: [client.allowInsecureRequests] },
);

const verifier = client.randomPKCECodeVerifier();
const nonce = client.randomNonce();
const state = client.randomState();
const url = client.buildAuthorizationUrl(config, {
  redirect_uri: REDIRECT_URI,
  scope: 'openid profile email',
  code_challenge: await client.calculatePKCECodeChallenge(verifier),
  code_challenge_method: 'S256',
  nonce,
  state,
  ...(maxAge === undefined ? {} : { max_age: String(maxAge) }),
});
console.log(JSON.stringify({ authorization_url: url.href }));

const redirected = new URL(await nextLine());
const tokens = await client.authorizationCodeGrant(config, redirected, {
  pkceCodeVerifier: verifier,
  expectedNonce: nonce,
  expectedState: state,
  idTokenExpected: true,
  maxAge,
});
const claims = tokens.claims();
const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token);

console.log(JSON.stringify({
  claims,
  userinfo,
  scope: tokens.scope,
  refreshed: { access_token: Boolean(refreshed.access_token), scope: refreshed.scope },
}));
