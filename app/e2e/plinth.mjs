// Starts a real plinth for the browser tests, the way sdk-ts's suites do: a
// fresh database on the test server (DATABASE_URL, else 127.0.0.1:5432), a
// free port, a temporary data folder, the built app; then loads the demo data
// with `plinth seed --demo`. Returns its URL and a stop function. The
// console's walks start theirs through it too (options below).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { startFakeGitHub } from './fake-github.mjs'
import { startFakeNewsletterWebhook } from './fake-newsletter-webhook.mjs'

const app = resolve(import.meta.dirname, '..')
const repo = resolve(app, '..')
// The built app the walks serve: app/dist, or E2E_APP_DIST (a build of its own).
const dist = process.env.E2E_APP_DIST ? resolve(process.env.E2E_APP_DIST) : join(app, 'dist')

function plinthBinary() {
  const candidates = [
    process.env.PLINTH_BIN,
    process.env.CARGO_TARGET_DIR && join(process.env.CARGO_TARGET_DIR, 'debug/plinth'),
    join(repo, 'target/debug/plinth'),
  ].filter(Boolean)
  const found = candidates.find((c) => existsSync(c))
  if (!found) throw new Error(`no plinth binary (looked at ${candidates.join(', ')}); set PLINTH_BIN or run cargo build -p plinth-server`)
  return found
}

function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => ok(port))
    })
  })
}

function withDatabase(url, name) {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

/**
 * options.name: a word in the database's and the data folder's names;
 * options.requireApp: stop when app/dist is not built (default true);
 * options.env: more settings for `plinth serve` and the commands around it;
 * options.beforeServe({ binary, env, repo }): runs before `serve` starts.
 */
export async function startPlinth(options = {}) {
  const binary = plinthBinary()
  if ((options.requireApp ?? true) && !existsSync(join(dist, 'index.html'))) {
    throw new Error('app/dist is missing: run npm run build first')
  }
  const name = options.name ? `${options.name}_` : ''
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const dbName = `plinth_e2e_${name}${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database "${dbName}"`)
  await admin.end()

  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const dataDir = mkdtempSync(join(tmpdir(), `plinth-e2e-${name}`))
  // GitHub sign-in is enabled, against a local stand-in; Google is not.
  const github = await startFakeGitHub()
  // The newsletter's external webhook: a local stand-in (walks: ctx.newsletter),
  // and what the fallback function stored (a server-only table).
  const newsletter = await startFakeNewsletterWebhook()
  newsletter.subscribers = async (email) => {
    const db = new pg.Client({ connectionString: withDatabase(serverUrl, dbName) })
    await db.connect()
    try {
      return (await db.query('select email, name from public.newsletter_subscribers where lower(email) = lower($1)', [email])).rows
    } finally {
      await db.end()
    }
  }
  const env = {
    ...process.env,
    DATABASE_URL: withDatabase(serverUrl, dbName),
    PLINTH_DATA_DIR: dataDir,
    JWT_SECRET: 'e2e-secret-of-at-least-32-characters-long',
    PLINTH_APP_DIR: dist,
    PLINTH_ENV_FILE: '/dev/null',
    PLINTH_MIGRATIONS: join(repo, 'migrations'),
    PLINTH_POLICIES: join(repo, 'policies'),
    RUST_LOG: process.env.RUST_LOG ?? 'warn',
    SITE_URL: url,
    ENABLE_EMAIL_AUTOCONFIRM: 'true',
    GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS: '10000',
    GOTRUE_RATE_LIMIT_EMAIL_SENT: '10000',
    GOTRUE_RATE_LIMIT_VERIFY: '10000',
    // Every walk's browser is 127.0.0.1: the per-address MFA limit (15 a minute) would be shared by all.
    GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: '10000',
    // ...and so would the per-address image renders (60 a minute), which every
    // screen's first look at the demo images spends.
    PLINTH_STORAGE_RENDERS_PER_MINUTE: '0',
    ...github.env,
    ...newsletter.env,
    ...options.env,
  }
  await options.beforeServe?.({ binary, env, repo })
  const child = spawn(binary, ['serve', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const output = []
  await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`plinth did not start:\n${output.join('')}`)), 90_000)
    const watch = (chunk) => {
      output.push(chunk.toString())
      if (process.env.PLINTH_LOG) process.stderr.write(chunk)
      if (output.join('').includes('Plinth is ready')) {
        clearTimeout(timer)
        ok()
      }
    }
    child.stdout.on('data', watch)
    child.stderr.on('data', watch)
    child.once('exit', (code) => {
      clearTimeout(timer)
      fail(new Error(`plinth exited with ${code}:\n${output.join('')}`))
    })
  })

  // The dev mailbox is the operator's: its link (with a token new at every
  // start) is printed at start-up; the walks read it through mailboxMessages.
  const mailboxLink = output.join('').match(/(http\S+\/_\/mailbox\?token=\S+)/)
  if (!mailboxLink) throw new Error(`plinth printed no mailbox link:\n${output.join('')}`)
  process.env.PLINTH_E2E_MAILBOX_TOKEN = new URL(mailboxLink[1]).searchParams.get('token')

  const seeded = spawnSync(binary, ['seed', '--demo'], { env, cwd: repo, encoding: 'utf8' })
  if (seeded.status !== 0) throw new Error(`plinth seed --demo failed:\n${seeded.stdout}\n${seeded.stderr}`)

  async function stop() {
    const exited = new Promise((ok) => child.once('exit', ok))
    child.kill('SIGINT')
    let timer
    await Promise.race([exited, new Promise((ok) => (timer = setTimeout(ok, 15_000)))])
    clearTimeout(timer)
    if (child.exitCode === null) child.kill('SIGKILL')
    const cleanup = new pg.Client({ connectionString: serverUrl })
    await cleanup.connect()
    await cleanup.query(`drop database if exists "${dbName}" with (force)`)
    await cleanup.end()
    rmSync(dataDir, { recursive: true, force: true })
    await github.stop()
    await newsletter.stop()
  }
  // databaseUrl: the walks' database, for a walk that needs rows no screen
  // makes (run.mjs hands walks `ctx.sql`).
  return { url, stop, output, newsletter, databaseUrl: env.DATABASE_URL }
}
