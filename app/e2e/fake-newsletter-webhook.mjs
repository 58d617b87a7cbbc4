// A local stand-in for the newsletter's external automation webhook (a
// third party we cannot reach, as Make's or Zapier's "catch hook" URLs are),
// handed to plinth as PLINTH_NEWSLETTER_WEBHOOK_URL. It speaks their wire
// format: a browser's CORS preflight gets 204 with Access-Control-Allow-*
// for any origin, a POST is taken as it comes and answered 200 "Accepted"
// (Make's answer), or with the status a walk asked for. Every POST it
// receives is recorded (method, path, content type, parsed JSON body).
import { createServer } from 'node:http'
import { randomBytes } from 'node:crypto'

const MAX_BODY = 64 * 1024

export async function startFakeNewsletterWebhook() {
  const path = `/hook/${randomBytes(8).toString('hex')}`
  const received = []
  const preflights = []
  let status = 200

  const cors = (req) => ({
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type',
    'access-control-max-age': '600',
  })

  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://fake-webhook')
    if (url.pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('There is no scenario listening for this webhook.')
      return
    }
    if (req.method === 'OPTIONS') {
      preflights.push({ origin: req.headers.origin, method: req.headers['access-control-request-method'] })
      res.writeHead(204, cors(req)).end()
      return
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', ...cors(req) }).end()
      return
    }
    const chunks = []
    let size = 0
    req.on('data', (chunk) => {
      size += chunk.length
      if (size <= MAX_BODY) chunks.push(chunk)
    })
    req.on('end', () => {
      if (size > MAX_BODY) {
        res.writeHead(413, { 'content-type': 'text/plain', ...cors(req) }).end('Payload too large')
        return
      }
      const text = Buffer.concat(chunks).toString('utf8')
      let body
      try {
        body = JSON.parse(text)
      } catch {
        body = text
      }
      received.push({ method: req.method, path: url.pathname, contentType: req.headers['content-type'], origin: req.headers.origin, body })
      const ok = status >= 200 && status < 300
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...cors(req) }).end(ok ? 'Accepted' : 'Scenario failed')
    })
  })
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
  const url = `http://127.0.0.1:${server.address().port}${path}`

  return {
    url,
    env: { PLINTH_NEWSLETTER_WEBHOOK_URL: url },
    /** The POSTs received since the last reset, oldest first. */
    received,
    preflights,
    /** Answer every following POST with this status (200 by default). */
    answer(next) {
      status = next
    },
    /** Forget what was received and answer 200 again. */
    reset() {
      received.length = 0
      preflights.length = 0
      status = 200
    },
    stop: () => new Promise((ok) => server.close(ok)),
  }
}
