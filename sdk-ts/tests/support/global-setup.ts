// Starts the real `plinth` binary on a fresh database of the test server
// (DATABASE_URL, else 127.0.0.1:5432) and hands its URL and keys to the tests;
// stops it and drops the database afterwards.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { startFakeGithub } from './fake-github'
import { plinthBinary } from './binary'

const repo = resolve(import.meta.dirname, '../../..')

export const JWT_SECRET = 'node-suite-secret-of-at-least-32-characters'
export const SITE_URL = 'http://localhost:3000'

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => ok(port))
    })
  })
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

declare module 'vitest' {
  export interface ProvidedContext {
    plinthUrl: string
    anonKey: string
    serviceRoleKey: string
    databaseUrl: string
    jwtSecret: string
    siteUrl: string
  }
}

export default async function setup(project: TestProject) {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const dbName = `plinth_node_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database "${dbName}"`)
  await admin.end()
  const databaseUrl = withDatabase(serverUrl, dbName)

  const github = await startFakeGithub()
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'plinth-node-'))
  const child: ChildProcess = spawn(
    plinthBinary(),
    ['serve', '--port', String(port), '--migrations', join(repo, 'migrations'), '--policies', join(repo, 'policies')],
    {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PLINTH_DATA_DIR: dataDir,
        JWT_SECRET,
        PLINTH_APP_DIR: join(dataDir, 'no-app'),
        PLINTH_ENV_FILE: '/dev/null',
        RUST_LOG: process.env.RUST_LOG ?? 'warn',
        // Execution plans for .explain() (rest-postgrest-formats.test.ts).
        PGRST_DB_PLAN_ENABLED: 'true',
        SITE_URL: SITE_URL,
        GITHUB_ENABLED: 'true',
        GITHUB_CLIENT_ID: github.clientId,
        GITHUB_SECRET: github.secret,
        GITHUB_AUTHORIZE_URL: `${github.url}/login/oauth/authorize`,
        GITHUB_TOKEN_URL: `${github.url}/login/oauth/access_token`,
        GITHUB_USERINFO_URL: `${github.url}/user`,
        GITHUB_EMAILS_URL: `${github.url}/user/emails`,
        // The suites sign up many users from one address.
        GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS: '10000',
        GOTRUE_RATE_LIMIT_EMAIL_SENT: '10000',
        GOTRUE_RATE_LIMIT_VERIFY: '10000',
        // Phone sign-in, identity linking, reauthentication (auth-phone-identities.test.ts).
        GOTRUE_EXTERNAL_PHONE_ENABLED: 'true',
        GOTRUE_SMS_TEST_OTP: '+15550001111=123456,+15550001112=654321',
        GOTRUE_RATE_LIMIT_SMS_SENT: '10000',
        GOTRUE_SECURITY_MANUAL_LINKING_ENABLED: 'true',
        GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: 'true',
        ENABLE_ANONYMOUS_USERS: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const output: string[] = []
  const ready = new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`plinth did not start:\n${output.join('')}`)), 60_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      output.push(chunk.toString())
      if (output.join('').includes('Plinth is ready')) {
        clearTimeout(timer)
        ok()
      }
    })
    child.stderr!.on('data', (chunk: Buffer) => {
      output.push(chunk.toString())
      if (process.env.PLINTH_LOG) process.stderr.write(chunk)
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      fail(new Error(`plinth exited with ${code}:\n${output.join('')}`))
    })
  })
  await ready
  const text = output.join('')
  const key = (name: string) => {
    const match = text.match(new RegExp(`^${name}=(\\S+)$`, 'm'))
    if (!match) throw new Error(`no ${name} in plinth's output:\n${text}`)
    return match[1]
  }

  project.provide('plinthUrl', `http://127.0.0.1:${port}`)
  project.provide('anonKey', key('ANON_KEY'))
  project.provide('serviceRoleKey', key('SERVICE_ROLE_KEY'))
  project.provide('databaseUrl', databaseUrl)
  project.provide('jwtSecret', JWT_SECRET)
  project.provide('siteUrl', SITE_URL)

  return async () => {
    const exited = new Promise((ok) => child.once('exit', ok))
    child.kill('SIGINT')
    let timer: NodeJS.Timeout | undefined
    await Promise.race([exited, new Promise((ok) => (timer = setTimeout(ok, 15_000)))])
    clearTimeout(timer)
    const cleanup = new pg.Client({ connectionString: serverUrl })
    await cleanup.connect()
    await cleanup.query(`drop database if exists "${dbName}" with (force)`)
    await cleanup.end()
    rmSync(dataDir, { recursive: true, force: true })
    await github.close()
  }
}
