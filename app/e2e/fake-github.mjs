// A local stand-in for GitHub's OAuth endpoints (the only fake the walks use:
// a third party we cannot reach), speaking GitHub's wire format. Its sign-in
// page is a person who clicks Cancel: `GET /login/oauth/authorize` sends the
// browser back to the app's `redirect_uri` with the `error`,
// `error_description` and `error_uri` GitHub adds, and the `state`. A code
// GitHub never issued gets its `bad_verification_code` answer.
import { createServer } from 'node:http'

export const FAKE_GITHUB_CLIENT_ID = 'e2e-github-client'
export const GITHUB_DENIED = 'The user has denied your application access.'

export async function startFakeGitHub() {
  const requests = []
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://fake-github')
    requests.push(`${req.method} ${url.pathname}`)
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri')
      if (url.searchParams.get('client_id') !== FAKE_GITHUB_CLIENT_ID || !redirectUri) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found')
        return
      }
      const back = new URL(redirectUri)
      back.searchParams.set('error', 'access_denied')
      back.searchParams.set('error_description', GITHUB_DENIED)
      back.searchParams.set('error_uri', 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#access-denied')
      const state = url.searchParams.get('state')
      if (state !== null) back.searchParams.set('state', state)
      res.writeHead(302, { location: back.toString() }).end()
      return
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(
        JSON.stringify({
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
          error_uri: 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code',
        }),
      )
      return
    }
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ message: 'Not Found' }))
  })
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
  const base = `http://127.0.0.1:${server.address().port}`
  return {
    base,
    requests,
    /** What plinth needs to send its GitHub sign-in here. */
    env: {
      GITHUB_ENABLED: 'true',
      GITHUB_CLIENT_ID: FAKE_GITHUB_CLIENT_ID,
      GITHUB_SECRET: 'e2e-github-secret',
      GITHUB_AUTHORIZE_URL: `${base}/login/oauth/authorize`,
      GITHUB_TOKEN_URL: `${base}/login/oauth/access_token`,
      GITHUB_USERINFO_URL: `${base}/user`,
      GITHUB_EMAILS_URL: `${base}/user/emails`,
      GOOGLE_ENABLED: 'false',
    },
    stop: () =>
      new Promise((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
