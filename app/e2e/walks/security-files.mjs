// Browser walks of stored files (security review, item 3). Storage serves
// user files on the app's own origin, so a file that is a page (HTML) or a
// picture with a script (SVG) must never run as a page of that origin:
// opened in the browser it is downloaded, not rendered, and were it rendered
// (the attachment header taken away on the way) it is sandboxed by its own
// CSP, and it is always taken as its declared type (nosniff).
// The marketplace's buckets refuse such types outright; an operator's own
// bucket may take anything, so the files are put into one made here with
// the service role. The app's pages carry a CSP that the screens live with.
import { createHmac } from 'node:crypto'
import { apiVisitor, expect } from '../lib.mjs'

// The secret the walks' server is started with (e2e/plinth.mjs).
const JWT_SECRET = 'e2e-secret-of-at-least-32-characters-long'
const MARKER = 'plinth-xss-marker'
const HTML = `<!doctype html><title>stored page</title><script>
  localStorage.setItem('${MARKER}', 'html'); document.title = 'pwned'; parent.postMessage('pwned', '*')
</script><p>stored page</p>`
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>
  localStorage.setItem('${MARKER}', 'svg'); document.title = 'pwned'
</script><rect width="10" height="10"/></svg>`

function base64url(value) {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
}

/** A service-role key, as `plinth keys` derives it from the secret. */
function serviceKey() {
  const now = Math.floor(Date.now() / 1000)
  const head = base64url({ alg: 'HS256', typ: 'JWT' })
  const body = base64url({ role: 'service_role', iss: 'plinth', iat: now, exp: now + 3600 })
  const signature = createHmac('sha256', JWT_SECRET).update(`${head}.${body}`).digest('base64url')
  return `${head}.${body}.${signature}`
}

async function anonKey(url) {
  return (await (await fetch(`${url}/_/app-config.json`)).json()).anonKey
}

async function storage(url, key, method, path, body, contentType = 'application/json') {
  const r = await fetch(`${url}/storage/v1/${path}`, {
    method,
    headers: { apikey: await anonKey(url), authorization: `Bearer ${key}`, 'content-type': contentType },
    body,
  })
  return { status: r.status, body: await r.json().catch(() => null) }
}

/** Opens `address` as a top-level page; answers whether it was downloaded instead. */
async function open(page, address) {
  const download = page.waitForEvent('download', { timeout: 5_000 }).catch(() => null)
  try {
    return { downloaded: false, response: await page.goto(address) }
  } catch {
    const downloaded = await download
    await downloaded?.cancel().catch(() => {})
    return { downloaded: Boolean(downloaded), response: null }
  }
}

/** The marker in the app origin's localStorage (read from an app page). */
async function marker(page, url) {
  await page.goto(`${url}/`)
  return page.evaluate((key) => localStorage.getItem(key), MARKER)
}

export const walks = [
  {
    name: 'security-files: a stored HTML page or SVG never runs on the app origin',
    async run(page, { url, viewport }) {
      const key = serviceKey()
      const bucket = `walk-open-${viewport}-${Date.now().toString(36)}`
      const made = await storage(url, key, 'POST', 'bucket', JSON.stringify({ id: bucket, name: bucket, public: true }))
      expect(made.status === 200, `create bucket: ${made.status} ${JSON.stringify(made.body)}`)
      const files = [
        ['page.html', 'text/html', HTML],
        ['shouty.html', 'Text/HTML; charset=utf-8', HTML],
        ['drawing.svg', 'image/svg+xml', SVG],
      ]
      for (const [name, type, body] of files) {
        const up = await storage(url, key, 'POST', `object/${bucket}/${name}`, body, type)
        expect(up.status === 200, `upload ${name}: ${up.status} ${JSON.stringify(up.body)}`)
      }

      await page.goto(`${url}/`)
      await page.getByRole('banner').waitFor()
      expect((await marker(page, url)) === null, 'no marker before the files are opened')
      const title = await page.title()

      for (const [name] of files) {
        const address = `${url}/storage/v1/object/public/${bucket}/${name}`
        // What the browser is told about the file.
        const head = await fetch(address, { method: 'HEAD' })
        expect(head.headers.get('x-content-type-options') === 'nosniff', `${name}: nosniff`)
        const csp = head.headers.get('content-security-policy') ?? ''
        expect(csp.includes('sandbox') && csp.includes("default-src 'none'"), `${name}: a sandboxing CSP, got ${csp}`)
        expect((head.headers.get('content-disposition') ?? '').startsWith('attachment'), `${name}: an attachment`)

        // Opened as a page: downloaded, and nothing ran.
        const opened = await open(page, address)
        expect(opened.downloaded, `${name} was rendered instead of downloaded`)
        expect((await page.title()) !== 'pwned', `${name}: its script ran`)
        expect((await marker(page, url)) === null, `${name}: its script wrote the app's localStorage`)

        // Were it rendered (a browser that ignored the attachment), its own
        // CSP sandboxes it: no script runs, none reaches the app's storage.
        await page.route(address, async (route) => {
          const original = await route.fetch()
          const headers = { ...original.headers() }
          delete headers['content-disposition']
          await route.fulfill({ response: original, headers })
        })
        const rendered = await open(page, address)
        await page.unroute(address)
        expect(!rendered.downloaded && rendered.response?.status() === 200, `${name} was not rendered without its attachment header`)
        await page.waitForTimeout(300)
        expect((await page.title()) !== 'pwned', `${name}: its script ran in the rendered copy`)
        expect((await marker(page, url)) === null, `${name}: the rendered copy wrote the app's localStorage`)
        expect((await page.title()) === title, `back on the app`)
      }

      // The marketplace's buckets refuse both types from a user.
      const user = await apiVisitor(url, `e2e-files-${viewport}-${Date.now()}@example.com`)
      for (const [bucket, name, type, body] of [
        ['avatars', 'me.svg', 'image/svg+xml', SVG],
        ['templates', 'previews/p.svg', 'image/svg+xml', SVG],
        ['templates', 'files/page.html', 'text/html', HTML],
      ]) {
        const refused = await storage(url, user.token, 'POST', `object/${bucket}/${user.id}/${name}`, body, type)
        expect(refused.body?.statusCode === '415', `${bucket} took ${type}: ${refused.status} ${JSON.stringify(refused.body)}`)
      }
    },
  },
  {
    name: 'security-files: the app pages carry a CSP the screens live with',
    async run(page, { url }) {
      await page.addInitScript(() => {
        window.__cspViolations = []
        document.addEventListener('securitypolicyviolation', (e) => {
          window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`)
        })
      })
      const violations = []
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
      })
      for (const path of ['/', '/discover', '/template/e0000000-0000-4000-8000-000000000001', '/auth?mode=sign-in', '/no/such/page']) {
        const response = await page.goto(url + path)
        const headers = response.headers()
        const csp = headers['content-security-policy'] ?? ''
        for (const directive of ["script-src 'self' https://js.stripe.com", "object-src 'none'", "base-uri 'self'", "frame-ancestors 'none'"]) {
          expect(csp.includes(directive), `${path}: ${directive} in ${csp}`)
        }
        expect(headers['x-content-type-options'] === 'nosniff', `${path}: nosniff`)
        await page.getByRole('banner').waitFor()
        await page.waitForLoadState('networkidle')
        const seen = await page.evaluate(() => window.__cspViolations)
        expect(seen.length === 0 && violations.length === 0, `${path}: CSP violations ${[...seen, ...violations].join('; ')}`)
      }
    },
  },
]
