// A stand-in for GitHub's OAuth endpoints on loopback, speaking GitHub's real
// wire format: the authorize page approves at once and redirects back with a
// code; the token endpoint exchanges it; /user and /user/emails describe the
// user. Only codes it issued are accepted. An authorize URL with `login=<name>`
// (supabase-js `queryParams`) signs in another user, `<name>@example.com`,
// so that a suite can link an identity nobody else uses.
import { createServer, type Server } from 'node:http'
import { randomBytes } from 'node:crypto'

export interface FakeGithub {
  url: string
  clientId: string
  secret: string
  close(): Promise<void>
}

export const GITHUB_USER = {
  id: 4242,
  login: 'octo-tester',
  name: 'Octo Tester',
  email: 'octo@example.com',
  avatar_url: 'https://example.com/octo.png',
}

type GithubUser = typeof GITHUB_USER

/** The user a `login=` hint names: a stable id of its own, `<login>@example.com`. */
function otherUser(login: string): GithubUser {
  let id = 5000
  for (const c of login) id = (id * 31 + c.charCodeAt(0)) % 1_000_000_007
  return { id, login, name: login, email: `${login}@example.com`, avatar_url: GITHUB_USER.avatar_url }
}

export async function startFakeGithub(): Promise<FakeGithub> {
  const clientId = 'fake-client-id'
  const secret = 'fake-client-secret'
  const codes = new Map<string, GithubUser>()
  const tokens = new Map<string, GithubUser>()
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    let body = ''
    for await (const chunk of req) body += chunk
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(value))
    }
    if (url.pathname === '/login/oauth/authorize') {
      if (url.searchParams.get('client_id') !== clientId) return json(400, { error: 'bad client' })
      const code = randomBytes(8).toString('hex')
      const login = url.searchParams.get('login')
      codes.set(code, login ? otherUser(login) : GITHUB_USER)
      const back = new URL(url.searchParams.get('redirect_uri')!)
      back.searchParams.set('code', code)
      back.searchParams.set('state', url.searchParams.get('state') ?? '')
      res.writeHead(302, { location: back.toString() })
      return res.end()
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      const form = new URLSearchParams(body)
      const auth = req.headers.authorization
      const basic = auth?.startsWith('Basic ')
        ? Buffer.from(auth.slice(6), 'base64').toString().split(':').map(decodeURIComponent)
        : [form.get('client_id'), form.get('client_secret')]
      const code = form.get('code') ?? ''
      const user = codes.get(code)
      if (basic[0] !== clientId || basic[1] !== secret || !user || !codes.delete(code)) {
        return json(200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' })
      }
      const token = `gho_${randomBytes(12).toString('hex')}`
      tokens.set(token, user)
      return json(200, { access_token: token, token_type: 'bearer', scope: 'user:email' })
    }
    const bearer = (req.headers.authorization ?? '').replace(/^(Bearer|token) /i, '')
    const user = tokens.get(bearer)
    if (!user) return json(401, { message: 'Bad credentials' })
    if (url.pathname === '/user') return json(200, user)
    if (url.pathname === '/user/emails') {
      return json(200, [{ email: user.email, primary: true, verified: true, visibility: 'public' }])
    }
    json(404, { message: 'Not Found' })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    clientId,
    secret,
    close: () => new Promise((ok) => server.close(() => ok())),
  }
}
