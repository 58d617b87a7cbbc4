// Starts the real `plinth` binary on a fresh database of the test server
// (DATABASE_URL, else 127.0.0.1:5432) and hands its URL and keys to the tests;
// stops it and drops the database afterwards.
import { resolve } from 'node:path'
import type { TestProject } from 'vitest/node'
import { startFakeGithub } from './fake-github'
import { freshDatabase, spawnPlinth } from './spawn-plinth'

export const JWT_SECRET = 'node-suite-secret-of-at-least-32-characters'
export const SITE_URL = 'http://localhost:3000'

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
  const database = await freshDatabase()
  const databaseUrl = database.databaseUrl

  const github = await startFakeGithub()
  const plinth = await spawnPlinth({
    databaseUrl,
    dataDirPrefix: 'plinth-node-',
    env: {
      JWT_SECRET,
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
      // The users' own edge functions run in Deno workers (functions-deno.test.ts).
      PLINTH_FUNCTIONS_DIR: resolve(import.meta.dirname, '../functions'),
    },
  })

  project.provide('plinthUrl', plinth.url)
  project.provide('anonKey', plinth.anonKey)
  project.provide('serviceRoleKey', plinth.serviceRoleKey)
  project.provide('databaseUrl', databaseUrl)
  project.provide('jwtSecret', JWT_SECRET)
  project.provide('siteUrl', SITE_URL)

  return async () => {
    await plinth.stop()
    await database.drop()
    await github.close()
  }
}
